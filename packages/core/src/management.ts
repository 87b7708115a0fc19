import type { Accounts } from "./accounts/accounts.js";
import type { Keyring } from "./shared/keyring.js";
import { createTeam, type Team } from "./accounts/team.js";
import type { Backend } from "./backends/backend.js";
import type { ClickhouseClient } from "./backends/clickhouse/connect.js";
import { createMemorySalts } from "./ingest/salts.js";
import { createUserAgentParser } from "./enrich/user-agent.js";
import { createWebsiteCache } from "./ingest/website-rules.js";
import { exportWebsite, type ExportOptions, type WebsiteExport } from "./moving/exporter.js";
import type { ImportContext } from "./moving/importer.js";
import { createCollector } from "./ingest/collector.js";
import { NotFoundError, ValidationError } from "./shared/errors.js";
import type { Mailer } from "./shared/mailer.js";
import type { Passwords } from "./shared/passwords.js";
import { DEFAULT_QUERY_TIMEOUT_MS } from "./stats/database-readers.js";
import { readFirstDay } from "./stats/first-day.js";
import { readLive } from "./stats/live.js";
import { createPathStats } from "./stats/path-stats.js";
import { createRealtimeReader } from "./stats/realtime.js";
import { createStats, type Stats } from "./stats/stats.js";
import type { EngineStore } from "./storage/store.js";
import { createAnnotations, type Annotations } from "./websites/annotations.js";
import { createFunnels, type Funnels } from "./websites/funnels.js";
import { createGoals, type Goals } from "./websites/goals.js";
import { createSavedSegments, type SavedSegments } from "./websites/saved-segments.js";
import { createShareLinks, type ShareLinks } from "./websites/share-links.js";
import type { WebsiteDirectory } from "./websites/website-directory.js";
import type { Websites } from "./websites/websites.js";
import { createReports, type Reports } from "./reports/reports.js";
import { createAlerts, type AlertOptions, type Alerts } from "./alerts/alerts.js";

/** What the management services are made of: the open store and what collecting made of it. */
export interface ManagementContext {
  /** How long one statistics query may run (`queryTimeoutMs`). */
  queryTimeoutMs: number | undefined;
  alertOptions: AlertOptions;
  store: Backend;
  rollups: EngineStore;
  clickhouse: ClickhouseClient | null;
  mailer: Mailer | null;
  publicUrl: string | null;
  passwords: Passwords;
  keyring: Keyring;
  directory: WebsiteDirectory;
  collector: ReturnType<typeof createCollector>;
  accounts: Accounts;
  websites: Websites;
  onError: (error: unknown) => void;
  /** Told of failed report and alert deliveries. */
  reportError: (error: unknown) => void;
  alertError: (error: unknown) => void;
}

/** Everything of a Tally but collecting: statistics, teams, reports, alerts, imports and exports. */
export interface Management {
  team: Team;
  funnels: Funnels;
  goals: Goals;
  annotations: Annotations;
  savedSegments: SavedSegments;
  shareLinks: ShareLinks;
  stats: Stats;
  reports: Reports;
  alerts: Alerts;
  importContext: ImportContext;
  exportWebsite(websiteId: number, options?: ExportOptions): Promise<WebsiteExport>;
  /** With ClickHouse: keeps the visits of every website's closed days of the last year not kept yet, ahead of reads; answers how many days (0 without ClickHouse). */
  keepClosedDays(): Promise<number>;
  /** Waits for the report and alert runs under way. */
  settle(): Promise<void>;
  /** Closes the statistics reads (their thread, for a SQLite file). */
  close(): Promise<void>;
}

/**
 * Opens the management services. Loaded on their first use (`import("./management.js")`),
 * not with Tally: an app that only collects never holds their code (docs/performance.md).
 */
export async function openManagement(context: ManagementContext): Promise<Management> {
  const { store, rollups, clickhouse, mailer, publicUrl, directory, collector, accounts, websites, onError } = context;
  const importAgents = createUserAgentParser();
  const funnels = createFunnels(store.db, websites);
  const goals = createGoals(store.db, websites);
  const savedSegments = createSavedSegments(store.db, websites);
  const importContext: ImportContext = {
    db: store.db,
    dialect: store.dialect,
    findWebsite: (id) => directory.findById(id),
    // Its own collector: salts in memory, visitor rows under the import's prefix, no rotation.
    replayCollector: (prefix) =>
      createCollector({
        store: rollups,
        salts: createMemorySalts(),
        websites: createWebsiteCache((host) => directory.findForHost(host)),
        userAgents: importAgents,
        geo: null,
        onFlushError: onError,
        visitorPrefix: prefix,
        rotateSalts: false,
        origin: "import",
      }),
    isBot: (userAgent) => importAgents.isBot(userAgent),
    async addAliases(websiteId, aliases) {
      for (const alias of aliases) {
        const row = await directory.findById(websiteId);
        if (!row) return;
        const current = row.aliases === "" ? [] : row.aliases.split("\n");
        if (current.includes(alias.toLowerCase())) continue;
        try {
          await websites.update(Number(row.account_id), websiteId, { aliases: [...current, alias].join("\n") });
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
        }
      }
    },
    async addFunnels(websiteId, definitions) {
      const row = await directory.findById(websiteId);
      if (!row) return;
      const accountId = Number(row.account_id);
      const key = (funnel: { name: string; steps: readonly string[] }) => JSON.stringify([funnel.name, funnel.steps]);
      const defined = new Set((await funnels.list(accountId, websiteId)).map(key));
      for (const definition of definitions) {
        if (defined.has(key(definition))) continue;
        try {
          defined.add(key(await funnels.create(accountId, websiteId, definition)));
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
        }
      }
    },
  };
  const queryTimeoutMs = context.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const databaseReads = await store.openReads(queryTimeoutMs);
  const clickhouseReads = clickhouse ? await import("./backends/clickhouse/reads.js") : null;
  const clickhouseLive = clickhouse ? await import("./backends/clickhouse/live.js") : null;
  const clickhouseWebsite = clickhouse ? await import("./backends/clickhouse/website-reads.js") : null;
  const clickhouseStats = clickhouse ? clickhouseReads!.createClickhouseStatsReads(clickhouse, databaseReads, queryTimeoutMs) : null;
  const reads = clickhouseStats ?? databaseReads;
  const beforeRead = () => collector.settleForRead();
  const stats: Stats = {
    ...createStats({
      websites,
      runner: reads,
      beforeRead,
      readRealtime: clickhouse
        ? clickhouseLive!.createClickhouseRealtimeReader(clickhouse, queryTimeoutMs)
        : createRealtimeReader(store.db),
      async goalsOf(websiteId) {
        const list = await goals.listOfWebsite(websiteId);
        const of = (type: "page" | "event") =>
          list.filter((goal) => goal.goal_type === type).map((goal) => goal.page_path ?? goal.event_name ?? "");
        return { pages: of("page"), events: of("event") };
      },
      segmentFilters: (viewer, websiteId, id) => savedSegments.get(viewer, websiteId, id).then((segment) => segment.filters),
      readLive: clickhouse
        ? clickhouseLive!.createClickhouseLiveReader(clickhouse, queryTimeoutMs)
        : (websiteId, now) => readLive(store.db, websiteId, now),
      async timezoneOf(websiteId) {
        const row = await directory.findById(websiteId);
        if (!row) throw new NotFoundError();
        return row.timezone;
      },
      recentDrops: (websiteId, domain) => collector.recentDrops(websiteId, domain),
      firstDay: clickhouse
        ? clickhouseWebsite!.createClickhouseFirstDay(clickhouse, queryTimeoutMs)
        : (websiteId) => readFirstDay(store.db, websiteId),
    }),
    ...createPathStats({ websites, funnels, runner: reads, beforeRead }),
  };
  const reports = createReports({ db: store.db, accounts, websites, stats, mailer, publicUrl, onError: context.reportError });
  const alerts = createAlerts({
    db: store.db,
    dialect: store.dialect,
    ...(clickhouse ? { reader: clickhouseWebsite!.createClickhouseAlertReader(clickhouse, queryTimeoutMs) } : {}),
    websites,
    mailer,
    publicUrl,
    options: context.alertOptions,
    beforeRead,
    onError: context.alertError,
  });
  return {
    team: createTeam({ db: store.db, mailer, passwords: context.passwords, keyring: context.keyring }),
    funnels,
    goals,
    annotations: createAnnotations(store.db, websites),
    savedSegments,
    shareLinks: createShareLinks(store.db, websites),
    stats,
    reports,
    alerts,
    importContext,
    async exportWebsite(websiteId, exportOptions) {
      const row = await directory.findById(websiteId);
      if (!row) throw new NotFoundError();
      await collector.flush();
      if (!clickhouse) return exportWebsite(store.db, row, exportOptions);
      const { clickhouseExportSource } = await import("./backends/clickhouse/export-source.js");
      return exportWebsite(store.db, row, exportOptions, clickhouseExportSource(clickhouse, websiteId));
    },
    async keepClosedDays() {
      if (!clickhouseStats) return 0;
      return clickhouseStats.keepClosedDays((await directory.listRows()).map((row) => Number(row.id)));
    },
    async settle() {
      await reports.settle();
      await alerts.settle();
    },
    close: () => reads.close(),
  };
}
