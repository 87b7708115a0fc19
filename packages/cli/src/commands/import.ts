import type { ImportSummary, Tally } from "@tally-analytics/core";
import { UsageError, stringFlag, type ParsedArgs } from "../args.js";
import { createProgress } from "../progress.js";

type Print = (line: string) => void;

const USAGE = "usage: tally import FILE --website ID [--dry-run] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]";
const FORMATS = { plausible: "Plausible CSV export", goatcounter: "GoatCounter CSV export", umami: "Umami data export", tally: "Tally export" } as const;
const PHASES = { check: "checking", import: "importing", replay: "replaying" } as const;
const number = (n: number) => n.toLocaleString("en-US");

export function websiteFlag(args: ParsedArgs, usage: string): number {
  const text = stringFlag(args, "website");
  if (text === undefined || !/^\d+$/.test(text)) throw new UsageError(usage);
  return Number(text);
}

/** `--from`/`--to` when given, as options. */
export function rangeFlags(args: ParsedArgs): { from?: string; to?: string } {
  const from = stringFlag(args, "from");
  const to = stringFlag(args, "to");
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

function describe(summary: ImportSummary, websiteId: number): string[] {
  const skipped = Object.values(summary.skipped).reduce((a, b) => a + b, 0);
  const verb = summary.dryRun ? "Would import" : "Imported";
  const lines = [
    `${verb} ${summary.file} (${FORMATS[summary.format]}) into website ${websiteId}: ${number(summary.rowsRead)} rows read, ${number(summary.imported)} imported, ${number(skipped)} skipped.`,
  ];
  for (const [reason, count] of Object.entries(summary.skipped)) lines.push(`  skipped ${number(count)}: ${reason}`);
  if (summary.firstDay) lines.push(`  days ${summary.firstDay} to ${summary.lastDay}${summary.importId === null ? "" : ` (import #${summary.importId})`}`);
  if (summary.sorted) lines.push(`  rows are not in time order: ${summary.dryRun ? "they would be" : "they were"} replayed sorted by time`);
  if (summary.ignoredFiles.length > 0) lines.push(`  files not read: ${summary.ignoredFiles.join(", ")}`);
  if (summary.dryRun) lines.push("  dry run: nothing was written");
  return lines;
}

/** `tally import FILE --website ID`: another tool's export (or Tally's own) into a website. */
export async function importCommand(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  const file = args.positional[1];
  if (file === undefined) throw new UsageError(USAGE);
  const websiteId = websiteFlag(args, USAGE);
  const progress = createProgress();
  try {
    const summary = await tally.import(file, {
      websiteId,
      dryRun: args.flags.has("dry-run"),
      ...rangeFlags(args),
      onProgress: (p) => progress.update({ label: PHASES[p.phase], done: p.done, total: p.total, rows: p.rows }),
    });
    progress.stop();
    if (args.flags.has("json")) print(JSON.stringify(summary, null, 2));
    else for (const line of describe(summary, websiteId)) print(line);
  } finally {
    progress.stop();
  }
}
