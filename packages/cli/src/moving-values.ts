import { UsageError } from "./command.js";
import { idFrom } from "./values.js";

/** `--website ID`, required by import and export. */
export function websiteFrom(text: string | undefined): number {
  if (text === undefined) throw new UsageError("--website ID is required");
  return idFrom("--website", text);
}

/** `--from`/`--to` when given (core checks the days). */
export function dayRange(values: { from?: string | undefined; to?: string | undefined }): { from?: string; to?: string } {
  return { ...(values.from === undefined ? {} : { from: values.from }), ...(values.to === undefined ? {} : { to: values.to }) };
}
