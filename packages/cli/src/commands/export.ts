import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { ExportFormat, Tally } from "@tally-analytics/core";
import { UsageError, stringFlag, type ParsedArgs } from "../args.js";
import { createProgress } from "../progress.js";
import { rangeFlags, websiteFlag } from "./import.js";

type Print = (line: string) => void;

const USAGE = "usage: tally export --website ID [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--format csv|plausible] [--output FILE|-]";

/** `tally export --website ID`: the website's daily statistics as a zip (Tally's CSV files, or Plausible's import layout). */
export async function exportCommand(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  const websiteId = websiteFlag(args, USAGE);
  const format = stringFlag(args, "format") ?? "csv";
  if (format !== "csv" && format !== "plausible") throw new UsageError(`--format must be csv or plausible\n${USAGE}`);
  const progress = createProgress();
  let rows = 0;
  try {
    const exported = await tally.export(websiteId, {
      format: format satisfies ExportFormat,
      ...rangeFlags(args),
      onProgress: (p) => {
        rows = p.rows;
        progress.update({ label: "exporting", done: p.rows, total: p.totalRows, rows: p.rows });
      },
    });
    const output = stringFlag(args, "output") ?? exported.fileName;
    const target = output === "-" ? process.stdout : createWriteStream(output);
    await pipeline(Readable.fromWeb(exported.body as WebReadableStream<Uint8Array>), target);
    progress.stop();
    if (output !== "-") print(`Wrote ${output} (${rows.toLocaleString("en-US")} rows, ${format === "csv" ? "Tally's CSV files" : "Plausible's import layout"}).`);
  } finally {
    progress.stop();
  }
}
