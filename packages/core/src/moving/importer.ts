import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import type { SqlDialect } from "../storage/dialect.js";
import type { CollectResult } from "../ingest/collector.js";
import { checkHit, type HitInput } from "../model/hit-input.js";
import { createLocalClock } from "../model/local-time.js";
import { NotFoundError, TallyError, ValidationError } from "../shared/errors.js";
import type { WebsiteRow } from "../websites/websites.js";
import { createCountsWriter } from "./counts-writer.js";
import { checkDayRange } from "./day-range.js";
import { detectFormat, READERS } from "./detect-format.js";
import type { FormatReader, FunnelDefinition, ImportFormat, ImportItem, TargetWebsite } from "./import-items.js";
import { createImportsLedger, type ImportCounts, type ImportRow } from "./imports-ledger.js";
import { openInput, type ByteCounter, type ImportInput } from "./input-files.js";
import { batchedInsert, openScratch } from "./scratch.js";

export interface ImportOptions {
  /** The website the data goes into. */
  websiteId: number;
  /**
   * Read and check everything and answer the summary, but write nothing.
   * @default false
   */
  dryRun?: boolean;
  /** Only rows of these local days (`Y-m-d`, inclusive); the rest are skipped. */
  from?: string;
  to?: string;
  /** Told how far the run is, a few times a second. */
  onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  /** `check` reads the input once without writing; `import` reads it again and writes; `replay` writes rows sorted by time. */
  phase: "check" | "import" | "replay";
  rows: number;
  /** Bytes of the input (check, import) or rows (replay) done, and in all. */
  done: number;
  total: number;
}

export interface ImportSummary {
  file: string;
  format: ImportFormat;
  dryRun: boolean;
  /** The `imports` row of this run; null for a dry run. */
  importId: number | null;
  /** Rows of the input (CSV data rows). */
  rowsRead: number;
  /** Rows counted into the website. */
  imported: number;
  /** Rows not counted, by reason. */
  skipped: Record<string, number>;
  /** Files of the input the format does not read. */
  ignoredFiles: string[];
  /** Local days of the first and last imported row. */
  firstDay: string | null;
  lastDay: string | null;
  /** Rows were not in time order and were replayed sorted. */
  sorted: boolean;
}

/** What an import needs of the Tally it runs in. */
export interface ImportContext {
  db: Kysely<Database>;
  dialect: SqlDialect;
  findWebsite(id: number): Promise<WebsiteRow | null>;
  /** A collector of its own for replayed hits: in-memory salts, visitor hashes under `prefix`. */
  replayCollector(prefix: string): { collect(hit: HitInput): Promise<CollectResult>; close(): Promise<void> };
  isBot(userAgent: string): boolean;
  /** Adds these ids to the website's aliases, each where it is free (a taken or malformed one is left out). */
  addAliases(websiteId: number, aliases: readonly string[]): Promise<void>;
  /** Defines these funnels on the website, each it lacks (same name and steps) while it has room; an invalid one is left out. */
  addFunnels(websiteId: number, funnels: readonly FunnelDefinition[]): Promise<void>;
}

/** checkHit names fields as the tracker sends them. */
const HIT_FIELD_NAMES: Readonly<Record<string, string>> = {
  u: "page URL",
  n: "event name",
  p: "event properties",
  ip: "visitor",
  timestamp: "time",
};

/** Why Tally cannot count a hit (a URL over 2,048 characters…), as a skip reason. */
function invalidReason(error: ValidationError): string {
  return `not a hit Tally can count (${Object.keys(error.errors)
    .map((field) => HIT_FIELD_NAMES[field] ?? field)
    .join(", ")})`;
}

/** The skip reason of a hit that breaks Tally's rules, or null. */
function invalidHit(hit: HitInput): string | null {
  try {
    checkHit(hit);
    return null;
  } catch (error) {
    if (error instanceof ValidationError) return invalidReason(error);
    throw error;
  }
}

type Verdict = { kind: "skip"; reason: string } | { kind: "keep"; day: string };

/**
 * The same decision for a row in the check and in the import: skipped why, or counted on
 * which day. Hits are checked against Tally's rules in the check only: in the import,
 * collect checks them itself and its refusal gets the same reason.
 */
function createJudge(
  website: TargetWebsite,
  options: ImportOptions,
  earlier: readonly ImportRow[],
  isBot: (userAgent: string) => boolean,
  checkHits: boolean,
) {
  const localTime = createLocalClock();
  const taken = earlier.filter((row) => row.first_day !== "");
  return (item: ImportItem): Verdict => {
    if (item.kind === "skip") return item;
    const day = item.kind === "counts" ? item.day : localTime(website.timezone, item.time).day;
    if ((options.from !== undefined && day < options.from) || (options.to !== undefined && day > options.to))
      return { kind: "skip", reason: "outside --from/--to" };
    const before = taken.find((row) => day >= row.first_day && day <= row.last_day);
    if (before)
      return {
        kind: "skip",
        reason: `day already imported (import #${before.id}${before.status === "complete" ? "" : `, ${before.status === "running" ? "interrupted" : "failed"}`})`,
      };
    if (item.kind === "hit") {
      const invalid = checkHits ? invalidHit(item.hit) : null;
      if (invalid !== null) return { kind: "skip", reason: invalid };
      if (website.excludeBots && item.hit.userAgent !== "" && isBot(item.hit.userAgent))
        return { kind: "skip", reason: "bot (user agent)" };
    }
    return { kind: "keep", day };
  };
}

function createRunCounts(format: ImportFormat, file: string, dryRun: boolean, ignored: readonly string[]) {
  const summary: ImportSummary = {
    file,
    format,
    dryRun,
    importId: null,
    rowsRead: 0,
    imported: 0,
    skipped: {},
    ignoredFiles: [...ignored],
    firstDay: null,
    lastDay: null,
    sorted: false,
  };
  return {
    summary,
    skip(reason: string) {
      summary.skipped[reason] = (summary.skipped[reason] ?? 0) + 1;
    },
    keep(day: string) {
      summary.imported++;
      if (summary.firstDay === null || day < summary.firstDay) summary.firstDay = day;
      if (summary.lastDay === null || day > summary.lastDay) summary.lastDay = day;
    },
    counts(): ImportCounts {
      const skipped = Object.values(summary.skipped).reduce((a, b) => a + b, 0);
      return { rowsRead: summary.rowsRead, imported: summary.imported, skipped, firstDay: summary.firstDay, lastDay: summary.lastDay };
    },
  };
}

function throttled(options: ImportOptions) {
  let last = 0;
  return (progress: ImportProgress, force = false) => {
    const now = Date.now();
    if (!options.onProgress || (!force && now - last < 200)) return;
    last = now;
    options.onProgress(progress);
  };
}

/**
 * `tally import`: reads the input once to check every row (a malformed file imports
 * nothing), refuses a file already imported into the website, then reads it again and
 * writes: daily aggregates into the rollups, hits through the engine at their own times
 * (sorted first when the file is not in time order). Days an earlier import covered are
 * skipped, so importing a longer export later adds only the new days.
 */
export async function runImport(context: ImportContext, file: string, options: ImportOptions): Promise<ImportSummary> {
  checkDayRange(options);
  const row = await context.findWebsite(options.websiteId);
  if (!row) throw new NotFoundError();
  const website: TargetWebsite = {
    id: Number(row.id),
    domain: row.domain,
    timezone: row.timezone,
    excludeBots: Number(row.exclude_bots) === 1,
  };
  const input = await openInput(file);
  const scratchDirectory = await mkdtemp(join(tmpdir(), "tally-import-"));
  let reader: FormatReader | null = null;
  try {
    const format = await detectFormat(input);
    reader = await READERS[format](input, website, scratchDirectory);
    const ledger = createImportsLedger(context.db);
    const earlier = await ledger.list(website.id);
    const hash = await input.contentHash();
    const same = earlier.find((other) => other.content_hash === hash && other.status === "complete");
    if (same)
      throw new TallyError(
        `${basename(file)} was imported into website ${website.id} already (import #${same.id}, ${same.created_at}); nothing was imported again.`,
      );
    const check = await checkPass(reader, input, createJudge(website, options, earlier, context.isBot, true), format, file, options);
    if (options.dryRun) return check.summary;
    const summary = await writePass(context, reader, input, createJudge(website, options, earlier, context.isBot, false), {
      format,
      file,
      hash,
      website,
      options,
      inOrder: check.inOrder,
      planned: check.counts,
      scratchDirectory,
    });
    // Umami's website id: its /api/send bodies find this website by it from now on.
    if (reader.aliases) await context.addAliases(website.id, reader.aliases());
    if (reader.funnels) await context.addFunnels(website.id, await reader.funnels());
    return summary;
  } finally {
    await reader?.close();
    await input.close();
    await rm(scratchDirectory, { recursive: true, force: true });
  }
}

async function checkPass(
  reader: FormatReader,
  input: ImportInput,
  judge: (item: ImportItem) => Verdict,
  format: ImportFormat,
  file: string,
  options: ImportOptions,
) {
  const tally = createRunCounts(format, file, true, reader.ignored);
  const counter: ByteCounter = { bytes: 0 };
  const report = throttled(options);
  let inOrder = true;
  let lastTime = -Infinity;
  for await (const item of reader.items(counter)) {
    tally.summary.rowsRead++;
    const verdict = judge(item);
    if (verdict.kind === "skip") tally.skip(verdict.reason);
    else {
      tally.keep(verdict.day);
      if (item.kind === "hit") {
        if (item.time < lastTime) inOrder = false;
        lastTime = Math.max(lastTime, item.time);
      }
    }
    report({ phase: "check", rows: tally.summary.rowsRead, done: counter.bytes, total: input.totalBytes });
  }
  report({ phase: "check", rows: tally.summary.rowsRead, done: input.totalBytes, total: input.totalBytes }, true);
  tally.summary.sorted = !inOrder;
  return { summary: tally.summary, counts: tally.counts(), inOrder };
}

interface WritePlan {
  format: ImportFormat;
  file: string;
  hash: string;
  website: TargetWebsite;
  options: ImportOptions;
  inOrder: boolean;
  planned: ImportCounts;
  scratchDirectory: string;
}

async function writePass(
  context: ImportContext,
  reader: FormatReader,
  input: ImportInput,
  judge: (item: ImportItem) => Verdict,
  plan: WritePlan,
): Promise<ImportSummary> {
  const ledger = createImportsLedger(context.db);
  const id = await ledger.begin(plan.website.id, plan.format, basename(plan.file), plan.hash, plan.planned);
  const tally = createRunCounts(plan.format, plan.file, false, reader.ignored);
  tally.summary.importId = id;
  tally.summary.sorted = !plan.inOrder;
  const collector = reader.kind === "replay" ? context.replayCollector(`~${id}:`) : null;
  const counts = reader.kind === "counts" ? createCountsWriter(context.db, context.dialect, plan.website.id) : null;
  const report = throttled(plan.options);
  const counter: ByteCounter = { bytes: 0 };
  const spool = plan.inOrder ? null : createSpool(plan.scratchDirectory);
  const replay = async (hit: HitInput, day: string) => {
    let result;
    try {
      result = await collector!.collect(hit);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      return tally.skip(invalidReason(error));
    }
    if (result.status === "dropped") tally.skip(result.reason === "bot" ? "bot (user agent)" : result.reason);
    else tally.keep(day);
  };
  try {
    for await (const item of reader.items(counter)) {
      tally.summary.rowsRead++;
      const verdict = judge(item);
      if (verdict.kind === "skip") tally.skip(verdict.reason);
      else if (item.kind === "counts") {
        await counts!.add(verdict.day, item.counts);
        tally.keep(verdict.day);
      } else if (item.kind === "hit") {
        if (spool) spool.add(item.time, item.hit, verdict.day);
        else await replay(item.hit, verdict.day);
      }
      report({ phase: "import", rows: tally.summary.rowsRead, done: counter.bytes, total: input.totalBytes });
    }
    report({ phase: "import", rows: tally.summary.rowsRead, done: input.totalBytes, total: input.totalBytes }, true);
    if (spool) {
      let done = 0;
      for (const { hit, day } of spool.sorted()) {
        await replay(hit, day);
        report({ phase: "replay", rows: tally.summary.rowsRead, done: ++done, total: spool.size });
      }
      report({ phase: "replay", rows: tally.summary.rowsRead, done: spool.size, total: spool.size }, true);
    }
    await counts?.flush();
    await collector?.close();
    await ledger.finish(id, tally.counts(), "complete");
    return tally.summary;
  } catch (error) {
    await collector?.close().catch(() => {});
    await ledger.finish(id, tally.counts(), "failed", error instanceof Error ? error.message : String(error)).catch(() => {});
    throw error;
  } finally {
    spool?.close();
    await ledger.forgetVisitors(id).catch(() => {});
  }
}

/** Hits not in time order wait in a scratch table, then replay sorted by time (and file order). */
function createSpool(directory: string) {
  const scratch = openScratch(directory, "spool");
  scratch.exec("create table spool (time integer not null, seq integer not null, day text not null, hit text not null)");
  const insert = batchedInsert(scratch, "insert into spool values (?, ?, ?, ?)");
  let size = 0;
  return {
    get size() {
      return size;
    },
    add(time: number, hit: HitInput, day: string) {
      insert.add([time, size++, day, JSON.stringify(hit)]);
    },
    *sorted(): Generator<{ hit: HitInput; day: string }> {
      insert.finish();
      scratch.exec("create index spool_order on spool (time, seq)");
      for (const row of scratch.prepare("select day, hit from spool order by time, seq").iterate() as Iterable<{
        day: string;
        hit: string;
      }>) {
        yield { day: row.day, hit: JSON.parse(row.hit) as HitInput };
      }
    },
    close: () => scratch.close(),
  };
}
