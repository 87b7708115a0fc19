import type * as z from "zod";
import { ValidationError } from "@tally/core";

/** Runs a zod schema and turns its issues into the API's 422: one list of messages per field. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
    (errors[field] ??= []).push(issue.message);
  }
  throw new ValidationError(errors);
}

/** Query parameters as one object; a repeated parameter takes its last value, an empty one is absent. */
export function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (value === "") delete query[key];
    else query[key] = value;
  }
  return query;
}
