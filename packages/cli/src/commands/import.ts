import { NotFoundError } from "@tally-analytics/core";
import type { ImportSummary } from "@tally-analytics/core";
import { defineCommand } from "../command.js";
import { createProgress } from "../progress.js";
import { dayRange, websiteFrom } from "../moving-values.js";

const FORMATS = {
  plausible: "Plausible CSV export",
  goatcounter: "GoatCounter CSV export",
  umami: "Umami data export",
  tally: "Tally export",
} as const;
const PHASES = { check: "checking", import: "importing", replay: "replaying" } as const;
const number = (n: number) => n.toLocaleString("en-US");

function describe(summary: ImportSummary, websiteId: number): string[] {
  const skipped = Object.values(summary.skipped).reduce((a, b) => a + b, 0);
  const verb = summary.dryRun ? "Would import" : "Imported";
  const lines = [
    `${verb} ${summary.file} (${FORMATS[summary.format]}) into website ${websiteId}: ${number(summary.rowsRead)} rows read, ${number(summary.imported)} imported, ${number(skipped)} skipped.`,
  ];
  for (const [reason, count] of Object.entries(summary.skipped)) lines.push(`  skipped ${number(count)}: ${reason}`);
  if (summary.firstDay)
    lines.push(`  days ${summary.firstDay} to ${summary.lastDay}${summary.importId === null ? "" : ` (import #${summary.importId})`}`);
  if (summary.sorted) lines.push(`  rows are not in time order: ${summary.dryRun ? "they would be" : "they were"} replayed sorted by time`);
  if (summary.ignoredFiles.length > 0) lines.push(`  files not read: ${summary.ignoredFiles.join(", ")}`);
  if (summary.dryRun) lines.push("  dry run: nothing was written");
  return lines;
}

/** `tally import FILE --website ID`: another tool's export (or Tally's own) into a website. */
export const importCommand = defineCommand({
  name: "import",
  summary: "import a Plausible, GoatCounter or Umami export (or Tally's own) into a website",
  description:
    "The format is detected. The file is checked whole first (a malformed one imports nothing), and the\n" +
    "same file, or days an earlier import covered, are never counted twice. Progress goes to stderr.",
  arguments: ["FILE"],
  options: {
    website: { type: "string", value: "ID", description: "the website to import into (required)", required: true },
    "dry-run": { type: "boolean", description: "check the file and say what would be imported; write nothing" },
    from: { type: "string", value: "YYYY-MM-DD", description: "skip rows before this day" },
    to: { type: "string", value: "YYYY-MM-DD", description: "skip rows after this day" },
    json: { type: "boolean", description: "print the summary as JSON" },
  },
  environment: ["DATABASE_URL"],
  async run({ values, args, tally, print }) {
    const websiteId = websiteFrom(values.website);
    const opened = await tally();
    const progress = createProgress();
    try {
      const summary = await opened.import(args[0]!, {
        websiteId,
        dryRun: values["dry-run"] === true,
        ...dayRange(values),
        onProgress: (p) => progress.update({ label: PHASES[p.phase], done: p.done, total: p.total, rows: p.rows }),
      });
      progress.stop();
      if (values.json) print(JSON.stringify(summary, null, 2));
      else for (const line of describe(summary, websiteId)) print(line);
    } catch (error) {
      // The core's answer names no website (it is the API's too): say which, and where to find one.
      if (error instanceof NotFoundError && error.message === new NotFoundError().message) {
        throw new NotFoundError(`there is no website ${websiteId} (tally websites list shows their IDs)`);
      }
      throw error;
    } finally {
      progress.stop();
    }
  },
});
