import type { Accounts } from "./accounts/accounts.js";
import { deferTeam } from "./accounts/deferred-team.js";
import type { Team } from "./accounts/team.js";
import { migrateToLatest } from "./storage/migrations.js";
import { accessSync, constants } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseDatabaseUrl, redactDatabaseUrl } from "./storage/database-url.js";
import { openDatabase, type DatabaseOption } from "./open-database.js";
import type { Backend } from "./backends/backend.js";
import type { EngineStore } from "./storage/store.js";
import type { ClickhouseClient } from "./backends/clickhouse/connect.js";
import { deferMethods } from "./shared/deferred.js";
import { lazy } from "./shared/lazy.js";
import { openGeoLookup } from "./enrich/geo.js";
import { createUserAgentParser } from "./enrich/user-agent.js";
import { createCollector, type CollectResult } from "./ingest/collector.js";
import type { HitInput } from "./model/hit-input.js";
import { PAGEVIEW_EVENT } from "./model/dimensions.js";
import type { AnyEvents, AppTransaction, EventMap, RecordArgs, TypedHit } from "./model/events.js";
import { createOutageLog } from "./ingest/outage-log.js";
import { markStarted, replayKeptHits, spillFoldersOf } from "./ingest/kept-hits.js";
import { spillChunks } from "./ingest/spill.js";
import { asStoreUnavailable, storeFaultOf } from "./storage/store-faults.js";
import type { Chunk } from "./ingest/write-queue.js";
import { oneRunAtATime } from "./shared/one-run-at-a-time.js";
import { createRetention } from "./ingest/retention.js";
import { createSalts } from "./ingest/salts.js";
import type { ImportOptions, ImportSummary } from "./moving/importer.js";
import type { ExportOptions, WebsiteExport } from "./moving/exporter.js";
import { NotFoundError, ValidationError } from "./shared/errors.js";
import { createWebsiteCache, websiteForHost } from "./ingest/website-rules.js";
import type { Stats } from "./stats/stats.js";
import type { Funnels } from "./websites/funnels.js";
import type { Goals } from "./websites/goals.js";
import type { Annotations } from "./websites/annotations.js";
import type { SavedSegments } from "./websites/saved-segments.js";
import type { ShareLinks } from "./websites/share-links.js";
import { checkTrustProxy, type TrustProxy } from "./shared/trust-proxy.js";
import { createWebsiteDirectory, type WebsiteDirectory } from "./websites/website-directory.js";
import type { Websites } from "./websites/websites.js";
import { createMailer, type MailOptions } from "./shared/mailer.js";
import type { Reports } from "./reports/reports.js";
import type { AlertOptions, Alerts } from "./alerts/alerts.js";
import { hasAlertWork } from "./alerts/alert-work.js";
import { createServerViews } from "./ingest/server-views.js";
import { createPasswords, type PasswordOptions, type Passwords } from "./shared/passwords.js";
import { checkSecret } from "./shared/keyring.js";
import { openKeyring, sealStoredSecrets, type SecretOption } from "./accounts/server-secret.js";
import { createOutboxRelay, saltInAppTransaction, writeToOutbox } from "./ingest/outbox.js";
import type { Management } from "./management.js";

export type { TrustProxy } from "./shared/trust-proxy.js";

export interface TallyOptions {
  /**
   * Where data lives.
   * @default "file:./data/tally.sqlite"
   */
  database?: DatabaseOption;
  /**
   * ClickHouse for the events (hits, signals, properties: kept there instead of the database):
   * `http(s)://user:password@host:8123/database`, or `chdb:PATH` for ClickHouse embedded in
   * this process (docs/clickhouse.md). Needs the
   * package `@clickhouse/client` (and `chdb` for `chdb:`), loaded only when this is set.
   * @default none
   */
  clickhouse?: string;
  /** A cluster of the ClickHouse servers: tables made on every node, replicated, with a Distributed table in front. */
  clickhouseCluster?: string;
  /**
   * Which proxies may name the client IP through X-Forwarded-For (or Forwarded): `false`
   * none; `true` one hop (the proxy in front of you: the address it appended is used); a
   * number, that many hops; a list of IPs and CIDRs, every hop from the right that is in
   * it (the first address not in it is the client). An invalid value throws at once.
   * @default false
   */
  trustProxy?: TrustProxy;
  /** Path of a GeoLite2 or DB-IP `.mmdb` (country or city) for country/continent/city statistics. */
  geoip?: string | readonly string[];
  /**
   * A developer's machine: hits on localhost, 127.0.0.1 or [::1] (any port) that no website
   * has count for the first website created (the app's own), so a first local run counts
   * without a website for each. Never set it in production.
   * @default process.env.NODE_ENV === "development"
   */
  development?: boolean;
  /**
   * How often buffered hits are written, in milliseconds.
   * @default 1000
   */
  flushIntervalMs?: number;
  /**
   * A write starts as soon as this many hits wait; past twice as many, `collect` waits for
   * that write (back-pressure). Small batches keep a busy app's memory flat at no cost in
   * CPU per hit (docs/performance.md). With ClickHouse, where each insert makes a part that
   * is merged later, 10,000: a quarter less CPU per hit than 2,000.
   * @default 2000 (10,000 with `clickhouse`)
   */
  batchSize?: number;
  /**
   * Past this many unwritten hits (a slow or failing database) `collect` refuses
   * with UnavailableError (HTTP 503) instead of growing memory.
   * @default 200000
   */
  maxBufferedHits?: number;
  /**
   * Told about every failed background write (they are retried).
   * @default at most one console.warn line a minute (no stack when the database is only locked)
   */
  onError?: (error: unknown) => void;
  /**
   * How long `close()` keeps retrying buffered hits the database refuses (a SQLite file
   * locked by another connection, a full disk, PostgreSQL unreachable) before it keeps
   * them in a file of `spillDir` instead, to be written at the next start.
   * @default 30000
   */
  closeTimeoutMs?: number;
  /**
   * Where `close()` keeps the hits it could not write (one NDJSON file per shutdown), and
   * where the next start looks for them. A folder that cannot take the file (the same full
   * disk) falls back to the OS temp folder's `tally-spill`. An in-memory database spills nothing.
   * @default "tally-spill" beside a SQLite file; the OS temp folder's `tally-spill` for PostgreSQL
   */
  spillDir?: string;
  /**
   * How often visits and hits older than each website's `retention_days` are deleted
   * (also once a minute after start); 0 turns the schedule off (`applyRetention()` still works).
   * @default 3600000 (hourly)
   */
  retentionIntervalMs?: number;
  /**
   * How often the day blocks of past days are built or rebuilt (filtered statistics read
   * them instead of the visits and hits; docs/statistics.md, "How filtered statistics are
   * read"); also two minutes after start. 0 turns the schedule off (`buildDayBlocks()` still works).
   * With ClickHouse, the same schedule keeps the visits of the last year's closed days instead.
   * @default 600000 (10 minutes)
   */
  dayBlocksIntervalMs?: number;
  /**
   * How long one statistics query may run; past it, it is stopped and answered with
   * UnavailableError (HTTP 503). A SQLite file is read on a thread of its own, which is
   * terminated; PostgreSQL reads run with this `statement_timeout`. A SQLite database
   * only your thread can reach (`:memory:`, a Kysely instance) cannot stop a statement:
   * there statements reading more than 500,000 stored rows are refused before they
   * start, calls run one at a time, and one that waited longer than this is refused.
   * @default 20000
   */
  queryTimeoutMs?: number;
  /**
   * How e-mail reports are sent: an SMTP URL and a From address, or the app's own
   * `send(message)`. With it, a scheduler sends each account's weekly or monthly report.
   * @default undefined (no e-mail, no scheduler)
   */
  mail?: MailOptions;
  /**
   * Where Tally is mounted, as the public sees it (`https://example.com/analytics`): reports
   * link to the dashboard and carry an unsubscribe link only when it is set.
   * @default undefined
   */
  publicUrl?: string;
  /**
   * How often the report scheduler looks for reports due (also 30 s after start, or
   * sooner when this is shorter); 0 turns it off (`reports.runDue()` still works).
   * @default 300000 (5 minutes)
   */
  reportIntervalMs?: number;
  /**
   * Alerts (docs/alerts.md): how often each website's rules are checked (and the deliveries
   * due sent), and how a failed delivery is retried. Webhooks need nothing else; e-mail needs `mail`.
   * @default { intervalMs: 60000, retryMs: 60000, maxRetryMs: 3600000, attempts: 30, timeoutMs: 10000 }
   */
  alerts?: AlertOptions;
  /**
   * How long a pageview the app's server counted (`servePageview`, the middleware) waits
   * for the tracker's pageview of the same view, which then adds screen size and language
   * to it instead of counting again; past it the view is counted alone (JavaScript off,
   * the script blocked). docs/statistics.md, "Server-side pageviews".
   * @default 10000
   */
  serverViewWaitMs?: number;
  /**
   * The server secret (at least 32 characters; `TALLY_SECRET` for `tally serve`). Keys derived
   * from it encrypt two-factor secrets at rest and key the sign-in limits' counters, so a copy
   * of the database alone holds neither. A list rotates it: the first encrypts, every one decrypts.
   * @default one made at first start and kept in the database (docs/teams.md, "The server secret")
   */
  secret?: SecretOption;
  /**
   * How passwords (of people and of share pages) are hashed and how many are checked at once:
   * scrypt's cost, and a small queue past which a check is refused at once with a 503.
   * @default { cost: { logN: 15, r: 8, p: 3 }, concurrent: half the cores, queued: 4 × concurrent }
   */
  passwords?: PasswordOptions;
}

/** The in-process API (`createTally()`), as the server's adapters take it whatever its events' types. */
export interface Tally {
  readonly options: Readonly<TallyOptions>;
  readonly accounts: Accounts;
  /** Users of accounts, their sessions, invitations, password resets and two-factor sign-in. */
  readonly team: Team;
  readonly websites: Websites;
  /** Each website's funnels (docs/statistics.md, "Funnels"): define, list, delete; read with `stats.funnel`. */
  readonly funnels: Funnels;
  /** Each website's goals, shared by everyone who sees it: page patterns and events, counted by the `goals` statistic. */
  readonly goals: Goals;
  /** Notes on a website's days, shown on the dashboard's charts. */
  readonly annotations: Annotations;
  /** Filter sets saved under a name per website, personal to a user or shared (the Stats API v2's `segment` filter). */
  readonly savedSegments: SavedSegments;
  /** Several links to a website's share page, each named, each revoked on its own. */
  readonly shareLinks: ShareLinks;
  readonly stats: Stats;
  /** E-mail reports: build, preview, send; the unsubscribe links' checks. */
  readonly reports: Reports;
  /** Each website's alert rules (e-mail and webhooks), and their delivery log (docs/alerts.md). */
  readonly alerts: Alerts;
  /**
   * Counts one pageview or event. Throws NotFoundError for an unknown host. A
   * pageview that completes one the server holds (`servePageview`) adds its screen size,
   * language and properties to it; one carrying a mark no longer held is dropped as `counted`.
   */
  collect(hit: HitInput): Promise<CollectResult>;
  /**
   * Records an event the app's server knows of (`tally.record("Signup", { props: { plan:
   * "pro" }, url, ip, userAgent })`): `collect` with the event's name first.
   */
  record(...args: RecordArgs<AnyEvents>): Promise<CollectResult>;
  /**
   * A pageview the app's own server saw (the middleware: docs/guide/inside-your-app.md): held
   * `serverViewWaitMs` for the tracker's pageview to complete it, then counted. Answers the
   * mark the response carries (`Server-Timing: tally;desc=<mark>`). Never throws: an
   * unregistered host or a bot is simply not counted.
   */
  servePageview(hit: HitInput): string;
  /** Writes every buffered hit now, server pageviews still waiting for the tracker's included. */
  flush(): Promise<void>;
  /**
   * Imports another tool's export (Plausible, GoatCounter, Umami) or Tally's own into a
   * website (docs/moving.md, "Moving to Tally"). Throws ImportFileError for a malformed file,
   * having written nothing.
   */
  import(file: string, options: ImportOptions): Promise<ImportSummary>;
  /** A website's daily statistics as a zip, streamed (docs/moving.md, "Leaving Tally"). */
  export(websiteId: number, options?: ExportOptions): Promise<WebsiteExport>;
  /** Deletes visits and hits older than each website's `retention_days` now; answers how many rows went. */
  applyRetention(now?: number): Promise<number>;
  /**
   * Builds the day blocks of past days that have none or an out-of-date one now; answers how
   * many were built. With ClickHouse: keeps the visits of the last year's closed days not kept
   * yet (docs/clickhouse.md), so that the first read over them need not form them; answers how many days.
   */
  buildDayBlocks(): Promise<number>;
  /** Resolves once the store is open and migrated; rejects if it cannot be. */
  ready(): Promise<void>;
  /**
   * Whether the store takes writes now, how many hits wait, and when a write last worked
   * (`GET {base}/health`). A store idle for 10 s gets a one-row write first to find out;
   * `{ probe: false }` answers from what is known.
   */
  health(options?: { probe?: boolean }): Promise<TallyHealth>;
  /**
   * Writes everything buffered and closes what Tally opened. Hits the database still
   * refuses after `closeTimeoutMs` are kept in a file of `spillDir` (one line says where)
   * and written at the next start; it rejects with an UnavailableError only when they
   * cannot be kept either (an in-memory database, a spill folder that takes no file).
   * What Tally opened is closed all the same.
   */
  close(): Promise<void>;
}

/**
 * A Tally whose events are typed (`createTally<Events>()`): `record` and `collect` take
 * only the app's event names, each with its properties. Still a `Tally` for the adapters.
 */
export interface TypedTally<E extends EventMap<E>> extends Omit<Tally, "collect" | "record"> {
  collect(hit: TypedHit<E>): Promise<CollectResult>;
  record(...args: RecordArgs<E>): Promise<CollectResult>;
}

/** What `tally.health()` answers. */
export interface TallyHealth {
  /** `ok`: writes work; `failing`: the store refuses them now (hits are buffered, or refused once the buffer is full). */
  status: "ok" | "failing";
  /** Hits accepted and not yet written. */
  buffered: number;
  /** When a write last worked; null before the first. */
  lastWrite: Date | null;
  /** Why writes fail, in one line; null while they work. */
  reason: string | null;
}

/** Accounts and websites: loaded together on the first call of either. */
interface Registry {
  accounts: Accounts;
  websites: Websites;
}

interface Services {
  /** Writes a conversion in the app's transaction (ingest/outbox.ts). */
  convert(input: HitInput, trx: AppTransaction): Promise<CollectResult>;
  /** Counts the conversions committed since the last run. */
  relayOutbox(): Promise<void>;
  registry(): Promise<Registry>;
  /** Statistics, teams, reports, alerts, imports and exports (management.ts). */
  management(): Promise<Management>;
  directory: WebsiteDirectory;
  collector: ReturnType<typeof createCollector>;
  retention: ReturnType<typeof createRetention>;
  dayBlocks: ReturnType<typeof oneRunAtATime<[], number>>;
  health(probe: boolean): Promise<TallyHealth>;
  /** Throws while calls must not reach the store (its file was deleted or replaced). */
  guard(): void;
  close(): Promise<void>;
}

const RETENTION_FIRST_RUN_MS = 60_000;
const DAY_BLOCKS_FIRST_RUN_MS = 120_000;

const REPORTS_FIRST_RUN_MS = 30_000;
const ALERTS_FIRST_RUN_MS = 30_000;

/** Runs `run` every `intervalMs`, first after `firstRunMs` (unreferenced timers: they never keep the process alive). */
function scheduleEvery(run: () => Promise<unknown>, intervalMs: number, firstRunMs: number, onError: (error: unknown) => void) {
  if (intervalMs <= 0) return () => {};
  const tick = () => void run().catch(onError);
  const first = setTimeout(tick, Math.min(firstRunMs, intervalMs));
  const every = setInterval(tick, intervalMs);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}

/** `https://host/mount/` → `https://host/mount`; anything but an http(s) URL is a configuration error. */
function publicBase(url: string | undefined): string | null {
  if (url === undefined || url === "") return null;
  if (!/^https?:\/\/[^/]/i.test(url) || !URL.canParse(url))
    throw new TypeError(`publicUrl must be an http:// or https:// URL, got "${url}"`);
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`;
}

/** Opens and migrates the database, and proves it takes writes; a failure says which database and why, in one sentence. */
async function openStore(option: DatabaseOption, onConnectionError: (error: unknown) => void): Promise<Backend & { databaseId: string }> {
  let store: Backend | undefined;
  try {
    store = await openDatabase(option, { onConnectionError });
    await migrateToLatest(store.db, store.dialect);
    return { ...store, databaseId: await markStarted(store.db) };
  } catch (error) {
    await store?.close().catch(() => {});
    const which = typeof option === "string" ? ` ${redactDatabaseUrl(option)}` : "";
    const fault = storeFaultOf(error);
    const unwritable = fault?.kind === "read-only" || fault?.kind === "disk-full" ? fault.reason : unwritableFile(option);
    const reason = unwritable === null ? reasonOf(error) : `it cannot be written: ${unwritable}`;
    throw new Error(`Cannot open the database${which}: ${reason}`, { cause: error });
  }
}

/** The SQLite file a URL names; null for PostgreSQL, memory, or a URL Tally does not read (said by the open error itself). */
function sqlitePathOf(url: string): string | null {
  try {
    const location = parseDatabaseUrl(url);
    return location.dialect === "sqlite" ? location.path : null;
  } catch {
    return null;
  }
}

/** Why a SQLite database's file (or its folder, for the WAL) cannot be written, or null when it can or is no file. */
function unwritableFile(option: DatabaseOption): string | null {
  const file = typeof option === "string" ? sqlitePathOf(option) : "prepare" in option ? option.name : null;
  if (file === null || file === "" || file === ":memory:") return null;
  for (const path of [file, dirname(resolve(file))]) {
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") continue;
      return code === "EROFS" ? `${path} is on a read-only file system (EROFS)` : `${path} is not writable (${code ?? "denied"})`;
    }
  }
  return null;
}

/** An error's message; for an AggregateError (pg trying ::1 and 127.0.0.1), its errors' messages. */
function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(reasonOf).join("; ");
  return error instanceof Error ? error.message : String(error);
}

/** Hits per write with ClickHouse: each insert makes a part that ClickHouse merges later, so fewer, larger ones cost less. */
const CLICKHOUSE_BATCH_SIZE = 10_000;

/** Where the engine writes: the database, and ClickHouse's hit log when the options name one (and its client, which statistics read through). */
async function openWriter(store: Backend, options: TallyOptions): Promise<{ writer: EngineStore; clickhouse: ClickhouseClient | null }> {
  const writer = store.openWriter();
  if (options.clickhouse === undefined) return { writer, clickhouse: null };
  try {
    const [{ connectClickhouse }, { openHitLog, withHitLog }] = await Promise.all([
      import("./backends/clickhouse/connect.js"),
      import("./backends/clickhouse/hit-log.js"),
    ]);
    const client = await connectClickhouse(options.clickhouse);
    const log = await openHitLog(client, { cluster: options.clickhouseCluster });
    const conversionsWritten = async (ids: readonly number[]) => {
      await store.db
        .deleteFrom("tally_outbox")
        .where("id", "in", [...ids])
        .execute();
    };
    return { writer: withHitLog(writer, log, conversionsWritten), clickhouse: client };
  } catch (error) {
    await writer.close().catch(() => {});
    await store.close().catch(() => {});
    throw new Error(`Cannot open ClickHouse ${redactDatabaseUrl(options.clickhouse)}: ${reasonOf(error)}`, { cause: error });
  }
}

async function openServices(options: TallyOptions, passwords: Passwords): Promise<Services> {
  const publicUrl = publicBase(options.publicUrl);
  // Before the store: a bad mail URL fails the start without leaving a database open (the transport holds no connection yet).
  const mailer = options.mail ? await createMailer(options.mail) : null;
  let collector: ReturnType<typeof createCollector> | undefined;
  const outageLog = options.onError ? undefined : createOutageLog({ waiting: () => collector?.buffered ?? 0 });
  const onError = options.onError ?? ((error: unknown) => outageLog!.failed(error));
  const store = await openStore(options.database ?? "file:./data/tally.sqlite", onError);
  const geo = options.geoip ? await openGeoLookup(options.geoip) : null;
  const { writer: rollups, clickhouse } = await openWriter(store, options);
  const spillFolders = spillFoldersOf(store, options.spillDir);
  if (spillFolders) await replayKeptHits(spillFolders, store.databaseId, rollups, onError);
  const keyring = await openKeyring(store.db, options.secret);
  await sealStoredSecrets(store.db, keyring);
  const directory = createWebsiteDirectory(store.db, passwords);
  collector = createCollector({
    store: rollups,
    salts: createSalts(rollups),
    websites: createWebsiteCache(websiteForHost(directory, options.development ?? process.env.NODE_ENV === "development")),
    userAgents: createUserAgentParser(),
    geo,
    ...(outageLog ? { outageReport: outageLog } : { onFlushError: onError }),
    ...(spillFolders ? { spill: (chunks: readonly Chunk[]) => spillChunks(spillFolders, store.databaseId, chunks) } : {}),
    ...(options.flushIntervalMs === undefined ? {} : { flushIntervalMs: options.flushIntervalMs }),
    ...(options.batchSize === undefined && clickhouse === null ? {} : { batchSize: options.batchSize ?? CLICKHOUSE_BATCH_SIZE }),
    ...(options.maxBufferedHits === undefined ? {} : { maxBufferedHits: options.maxBufferedHits }),
    ...(options.closeTimeoutMs === undefined ? {} : { closeTimeoutMs: options.closeTimeoutMs }),
  });
  const flushed = collector;
  // Accounts and websites, then everything else, each loaded with its first use: an app that
  // only collects holds neither's code (docs/performance.md, "Footprint, idle").
  const registry = lazy(async (): Promise<Registry> => {
    const [{ createAccounts }, { createWebsites }] = await Promise.all([
      import("./accounts/accounts.js"),
      import("./websites/websites.js"),
    ]);
    const websites = createWebsites(store.db, passwords, {
      async onChange(row, change) {
        // Its aliases route hits too: each is a key of the collector's cache.
        for (const alias of row.aliases === "" ? [] : row.aliases.split("\n")) flushed.forgetDomain(alias);
        if (change === "delete") {
          flushed.forgetWebsite(Number(row.id), row.domain);
          await rollups.deleteWebsite(Number(row.id));
        } else flushed.forgetDomain(row.domain);
      },
    });
    return { accounts: createAccounts(store.db), websites };
  });
  const reportError =
    options.onError ?? ((error: unknown) => console.error(`tally: e-mail ${error instanceof Error ? error.message : String(error)}`));
  const alertError =
    options.onError ?? ((error: unknown) => console.error(`tally: ${error instanceof Error ? error.message : String(error)}`));
  let managementOpened: Promise<Management> | null = null;
  const management = () =>
    (managementOpened ??= (async () => {
      const [{ openManagement }, { accounts, websites }] = await Promise.all([import("./management.js"), registry()]);
      const context = { store, rollups, clickhouse, mailer, publicUrl, passwords, keyring, directory, collector: flushed };
      const settings = { queryTimeoutMs: options.queryTimeoutMs, alertOptions: options.alerts ?? {} };
      return openManagement({ ...context, ...settings, accounts, websites, onError, reportError, alertError });
    })());
  const outbox = createOutboxRelay({
    db: store.db,
    write: (hits, batchId) => rollups.write(hits, batchId),
    claim: clickhouse !== null,
  });
  const flushEvery = options.flushIntervalMs ?? 1000;
  const stopOutbox = scheduleEvery(() => outbox.run(), flushEvery, flushEvery, onError);
  const retention = createRetention(rollups, () => directory.listRows());
  const stopRetention = scheduleEvery(() => retention.run(), options.retentionIntervalMs ?? 3_600_000, RETENTION_FIRST_RUN_MS, onError);
  // With ClickHouse the database holds no events to build blocks of: its closed days' visits are kept instead.
  const dayBlocks = oneRunAtATime(async () =>
    clickhouse === null ? (await import("./stats/day-block-builder.js")).buildDayBlocks(store.db) : (await management()).keepClosedDays(),
  );
  const stopDayBlocks = scheduleEvery(() => dayBlocks.run(), options.dayBlocksIntervalMs ?? 600_000, DAY_BLOCKS_FIRST_RUN_MS, onError);
  const stopReports = mailer
    ? scheduleEvery(
        async () => (await management()).reports.runDue(),
        options.reportIntervalMs ?? 300_000,
        REPORTS_FIRST_RUN_MS,
        reportError,
      )
    : () => {};
  // Without a rule or a delivery there is nothing to check or send: the alerts' code stays unloaded.
  const runAlerts = async () => (managementOpened || (await hasAlertWork(store.db)) ? (await management()).alerts.runDue() : undefined);
  const stopAlerts = scheduleEvery(runAlerts, options.alerts?.intervalMs ?? 60_000, ALERTS_FIRST_RUN_MS, alertError);
  return {
    async convert(input, trx) {
      const prepared = await flushed.prepareConversion(input, (day) => saltInAppTransaction(trx, store.dialect, day));
      if ("status" in prepared) return prepared;
      await writeToOutbox(trx, store.dialect, prepared);
      return { status: "accepted" };
    },
    async relayOutbox() {
      // Twice: a run under way may have read the outbox before the latest commit.
      await outbox.run();
      await outbox.run();
    },
    registry,
    management,
    directory,
    collector,
    retention,
    dayBlocks,
    async health(probe) {
      const health = await flushed.health(probe);
      return {
        status: health.status,
        buffered: health.buffered,
        lastWrite: health.lastWrite === null ? null : new Date(health.lastWrite),
        reason: health.fault?.reason ?? null,
      };
    },
    guard: () => flushed.refuseIfReplaced(),
    async close() {
      stopOutbox();
      await outbox.settle();
      await outbox.run().catch(onError);
      stopRetention();
      stopDayBlocks();
      stopReports();
      stopAlerts();
      const opened = await managementOpened?.catch(() => null);
      try {
        await retention.settle();
        await dayBlocks.settle();
        await opened?.settle();
        await flushed.close();
      } finally {
        mailer?.close();
        await opened?.close();
        await rollups.close();
        geo?.close();
        await store.close();
      }
    },
  };
}

/**
 * Returns the in-process API at once; the store opens and migrates in the background
 * and every call waits for it (`await tally.ready()` to surface an open error early).
 */
export function createTally<E extends EventMap<E> = AnyEvents>(options: TallyOptions = {}): TypedTally<E> {
  checkTrustProxy(options.trustProxy);
  if (options.secret !== undefined) (typeof options.secret === "string" ? [options.secret] : options.secret).forEach(checkSecret);
  const services = openServices(options, createPasswords(options.passwords));
  /** The services once open: a hit then takes them without waiting a turn. */
  let opened: Services | undefined;
  services.then(
    (open) => (opened = open),
    () => {}, // reported through ready() and every call, never as unhandled
  );
  let closing: Promise<void> | null = null;
  /** A service whose calls wait for the store, are refused while its file is gone, and answer a store fault as a 503. */
  const guarded = <T extends object>(pick: (s: Services) => T | Promise<T>) =>
    deferMethods(
      services,
      (s) => {
        s.guard();
        return pick(s);
      },
      asStoreUnavailable,
    );
  const views = createServerViews({
    count: async (hit) => (opened ?? (await services)).collector.collect(hit, "server"),
    onError: (error) => {
      // A page of a host with no website (a developer's localhost), or a malformed URL: not counted, by design.
      if (error instanceof NotFoundError || error instanceof ValidationError) return;
      if (options.onError) options.onError(error);
      else console.warn(`tally: a server-side pageview was not counted: ${reasonOf(error)}`);
    },
    waitMs: options.serverViewWaitMs ?? 10_000,
  });
  /** A hit of a client's (`collect`), or of the app's own server (`record`): their new values have budgets of their own. */
  function collect(hit: HitInput, from: "client" | "server" = "client"): Promise<CollectResult> {
    // Not an async function: a hit counted at once is one promise, the collector's.
    if (!opened) return services.then(() => collect(hit, from));
    try {
      return collectWith(opened.collector, hit, from);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  function collectWith(collector: Services["collector"], hit: HitInput, from: "client" | "server"): Promise<CollectResult> {
    const isPageview =
      (hit.event === undefined || hit.event === null || hit.event === PAGEVIEW_EVENT) &&
      (hit.engagedMs === undefined || hit.engagedMs === null);
    const served = isPageview ? views.claim(hit) : undefined;
    if (served === null) return Promise.resolve({ status: "dropped", reason: "counted" });
    // The server's view (its time, page and referrer) with what only the browser knows.
    if (served)
      return collector.collect({
        ...served,
        screen: hit.screen,
        language: hit.language || served.language,
        props: hit.props ?? served.props,
      });
    return collector.collect(hit, from);
  }
  const tally: Tally = {
    options,
    accounts: guarded(async (s) => (await s.registry()).accounts),
    team: deferTeam((pick) => guarded(async (s) => pick((await s.management()).team)) as ReturnType<typeof pick>),
    websites: guarded(async (s) => (await s.registry()).websites),
    funnels: guarded(async (s) => (await s.management()).funnels),
    goals: guarded(async (s) => (await s.management()).goals),
    annotations: guarded(async (s) => (await s.management()).annotations),
    savedSegments: guarded(async (s) => (await s.management()).savedSegments),
    shareLinks: guarded(async (s) => (await s.management()).shareLinks),
    stats: guarded(async (s) => (await s.management()).stats),
    reports: guarded(async (s) => (await s.management()).reports),
    alerts: guarded(async (s) => (await s.management()).alerts),
    collect: (hit) => collect(hit),
    async record(name, { trx, ...input }) {
      const hit = { ...input, event: name };
      return trx ? (await services).convert(hit, trx) : collect(hit, "server");
    },
    servePageview: (hit) => views.hold(hit),
    health: async (healthOptions) => (await services).health(healthOptions?.probe ?? true),
    flush: async () => {
      await views.release();
      await (await services).relayOutbox();
      await (await services).collector.flush();
    },
    applyRetention: async (now) => (await services).retention.run(now),
    buildDayBlocks: async () => (await services).dayBlocks.run(),
    async import(file, importOptions) {
      const [{ runImport }, { importContext }] = await Promise.all([import("./moving/importer.js"), (await services).management()]);
      return runImport(importContext, file, importOptions);
    },
    export: async (websiteId, exportOptions) => (await (await services).management()).exportWebsite(websiteId, exportOptions),
    ready: async () => {
      await services;
    },
    close() {
      closing ??= services.then(
        async (s) => {
          await views.release();
          await s.close();
        },
        () => {},
      );
      return closing;
    },
  };
  const internals: TallyInternals = { websites: guarded((s) => s.directory) };
  // Enumerable, so that `{ ...tally }` (a host wrapping its Tally) keeps it.
  Object.defineProperty(tally, INTERNALS, { value: internals, enumerable: true });
  // One implementation for every map: `E` only narrows what callers may pass.
  return tally as unknown as TypedTally<E>;
}

const INTERNALS = Symbol("tally.internals");

/** What the server and CLI reach beside the public API (the `./internal` entry point). */
export interface TallyInternals {
  /** Website lookups across every account. */
  websites: WebsiteDirectory;
}

/** The internals of a Tally made by `createTally` (or an object spread from one). */
export function tallyInternals(tally: Tally): TallyInternals {
  const internals = (tally as Tally & { [INTERNALS]?: TallyInternals })[INTERNALS];
  if (!internals) throw new TypeError("not a Tally made by createTally()");
  return internals;
}
