import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { WebsiteRow } from "../websites/websites.js";
import { checkDayRange } from "./day-range.js";
import { engagementFile } from "./engagement-rows.js";
import { databaseExportSource, type ExportSource } from "./export-source.js";
import { plausibleFiles, PLAUSIBLE_NAMES } from "./plausible-export.js";
import { daySeries, type ExportRange } from "./rollup-rows.js";
import { FUNNELS_FILE, keyFields, TALLY_FILES } from "./tally-layout.js";
import { zipCsv, type OutputFile } from "./zip-csv.js";

export type ExportFormat = "csv" | "plausible";

export interface ExportOptions {
  /**
   * `csv`: Tally's own layout, one file per statistic (read back exactly by `tally import`),
   * and the engagement signals (`engagement.csv`, one row per signal; not read back: they
   * belong to visits, which an export does not carry);
   * `plausible`: the files Plausible's CSV import takes.
   * @default "csv"
   */
  format?: ExportFormat;
  /** First and last local day (`Y-m-d`); default: the website's first and last day with data. */
  from?: string;
  to?: string;
  /** Told of the rows written so far and how many there are in all. */
  onProgress?: (progress: { rows: number; totalRows: number }) => void;
}

export interface WebsiteExport {
  /** A file name for it, e.g. `tally-example.com-20240101-20241231.zip`. */
  fileName: string;
  totalRows: number;
  /** The zip, produced as it is read. */
  body: ReadableStream<Uint8Array>;
}

/** The website's funnels, in the order they were defined. */
const funnelRows = (db: Kysely<Database>, websiteId: number) =>
  db.selectFrom("funnels").select(["name", "steps"]).where("website_id", "=", websiteId).orderBy("id").execute();

function tallyFiles(db: Kysely<Database>, websiteId: number, source: ExportSource, range: ExportRange): OutputFile[] {
  const funnels: OutputFile = {
    name: FUNNELS_FILE.file,
    header: FUNNELS_FILE.columns,
    async *rows() {
      for (const funnel of await funnelRows(db, websiteId)) yield [funnel.name, funnel.steps];
    },
  };
  return TALLY_FILES.map((file): OutputFile => {
    const names = Object.values(file.counts);
    const derived = Object.entries(file.derived ?? {});
    return {
      name: file.file,
      header: ["date", ...file.keys, ...Object.keys(file.counts), ...derived.map(([column]) => column)],
      async *rows() {
        if (file.keys.length === 0) {
          for (const [day, counts] of await daySeries((name, within) => source.dayRows(name, within), names, range)) {
            const count = (name: string) => counts.get(name) ?? 0;
            yield [day, ...names.map(count), ...derived.map(([, compute]) => compute(count))];
          }
          return;
        }
        for await (const row of source.dayRows(names[0]!, range)) yield [row.day, ...keyFields(file, row.value), row.count];
      },
    };
  }).concat(funnels);
}

const TALLY_NAMES = TALLY_FILES.flatMap((file) => Object.values(file.counts));

/**
 * A website's daily statistics as a zip stream (`tally export`, `GET /api/v1/websites/{id}/export`):
 * its figures from `source` (the database's, unless ClickHouse holds the events), its funnels from the database.
 */
export async function exportWebsite(
  db: Kysely<Database>,
  website: WebsiteRow,
  options: ExportOptions = {},
  source: ExportSource = databaseExportSource(db, Number(website.id)),
): Promise<WebsiteExport> {
  checkDayRange(options);
  const format = options.format ?? "csv";
  const websiteId = Number(website.id);
  const data = await source.dataRange();
  const today = new Date().toISOString().slice(0, 10);
  const range = { from: options.from ?? data?.from ?? today, to: options.to ?? data?.to ?? today };
  if (range.from > range.to) range.from = range.to;
  // The signals' file only when there are signals: an export without them reads back with nothing ignored.
  const signals = format === "csv" ? await source.countSignals(range) : 0;
  const files =
    format === "csv"
      ? [
          ...tallyFiles(db, websiteId, source, range),
          ...(signals > 0 ? [engagementFile((within) => source.signalsByDay(within), range)] : []),
        ]
      : plausibleFiles(source, website, range);
  const totalRows =
    (await source.countDayRows(format === "csv" ? TALLY_NAMES : PLAUSIBLE_NAMES, range)) +
    (format === "csv" ? (await funnelRows(db, websiteId)).length + signals : 0);
  const compact = (day: string) => day.replace(/-/g, "");
  const fileName =
    format === "csv"
      ? `tally-${website.domain}-${compact(range.from)}-${compact(range.to)}.zip`
      : `${website.domain.replace(/\./g, "_")}_${compact(range.from)}_${compact(range.to)}.zip`;
  let rows = 0;
  const chunks = zipCsv(files, () => {
    rows++;
    if (rows % 1000 === 0) options.onProgress?.({ rows, totalRows });
  });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const step = await chunks.next();
      if (!step.done) return controller.enqueue(step.value);
      options.onProgress?.({ rows, totalRows });
      controller.close();
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
  return { fileName, totalRows, body };
}
