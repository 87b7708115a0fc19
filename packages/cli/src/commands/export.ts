import { createWriteStream } from "node:fs";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { defineCommand, UsageError } from "../command.js";
import { createProgress } from "../progress.js";
import { dayRange, websiteFrom } from "../moving-values.js";

/** `tally export --website ID`: the website's daily statistics as a zip (Tally's CSV files, or Plausible's import layout). */
export const exportCommand = defineCommand({
  name: "export",
  summary: "write a website's daily statistics as a zip (Tally's CSV files or Plausible's layout)",
  description: "`tally import` reads the csv format back; Plausible's CSV import reads the plausible one.",
  options: {
    website: { type: "string", value: "ID", description: "the website to export (required)", required: true },
    format: { type: "string", value: "csv|plausible", description: "the layout (default csv)" },
    from: { type: "string", value: "YYYY-MM-DD", description: "first day (default: the first one counted)" },
    to: { type: "string", value: "YYYY-MM-DD", description: "last day (default: today)" },
    output: { type: "string", value: "FILE|-", description: "where to write the zip (default: its own name here; - for stdout)" },
  },
  environment: ["DATABASE_URL"],
  async run({ values, tally, print }) {
    const websiteId = websiteFrom(values.website);
    const format = values.format ?? "csv";
    if (format !== "csv" && format !== "plausible") throw new UsageError(`--format must be csv or plausible, got "${format}"`);
    const opened = await tally();
    const progress = createProgress();
    let rows = 0;
    try {
      const exported = await opened.export(websiteId, {
        format,
        ...dayRange(values),
        onProgress: (p) => {
          rows = p.rows;
          progress.update({ label: "exporting", done: p.rows, total: p.totalRows, rows: p.rows });
        },
      });
      const output = values.output ?? exported.fileName;
      const target = output === "-" ? process.stdout : createWriteStream(output);
      await pipeline(Readable.fromWeb(exported.body as WebReadableStream<Uint8Array>), target, { end: output !== "-" });
      progress.stop();
      if (output !== "-")
        print(
          `Wrote ${output} (${rows.toLocaleString("en-US")} rows, ${format === "csv" ? "Tally's CSV files" : "Plausible's import layout"}).`,
        );
    } finally {
      progress.stop();
    }
  },
});
