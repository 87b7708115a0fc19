import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { WebsiteRow } from "../websites/websites.js";
import { checkDayRange } from "./day-range.js";
import { countSignals, engagementFile } from "./engagement-rows.js";
import { plausibleFiles, PLAUSIBLE_NAMES } from "./plausible-export.js";
import { countDayRows, dataRange, dayRows, daySeries, type ExportRange } from "./rollup-rows.js";
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

function tallyFiles(db: Kysely<Database>, websiteId: number, range: ExportRange): OutputFile[] {
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
          for (const [day, counts] of await daySeries(db, websiteId, names, range)) {
            const count = (name: string) => counts.get(name) ?? 0;
            yield [day, ...names.map(count), ...derived.map(([, compute]) => compute(count))];
          }
          return;
        }
        for await (const row of dayRows(db, websiteId, names[0]!, range)) yield [row.day, ...keyFields(file, row.value), row.count];
      },
    };
  }).concat(funnels);
}

const TALLY_NAMES = TALLY_FILES.flatMap((file) => Object.values(file.counts));

/** A website's daily statistics as a zip stream (`tally export`, `GET /api/v1/websites/{id}/export`). */
export async function exportWebsite(db: Kysely<Database>, website: WebsiteRow, options: ExportOptions = {}): Promise<WebsiteExport> {
  checkDayRange(options);
  const format = options.format ?? "csv";
  const websiteId = Number(website.id);
  const data = await dataRange(db, websiteId);
  const today = new Date().toISOString().slice(0, 10);
  const range = { from: options.from ?? data?.from ?? today, to: options.to ?? data?.to ?? today };
  if (range.from > range.to) range.from = range.to;
  // The signals' file only when there are signals: an export without them reads back with nothing ignored.
  const signals = format === "csv" ? await countSignals(db, websiteId, range) : 0;
  const files =
    format === "csv"
      ? [...tallyFiles(db, websiteId, range), ...(signals > 0 ? [engagementFile(db, websiteId, range)] : [])]
      : plausibleFiles(db, website, range);
  const totalRows =
    (await countDayRows(db, websiteId, format === "csv" ? TALLY_NAMES : PLAUSIBLE_NAMES, range)) +
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
