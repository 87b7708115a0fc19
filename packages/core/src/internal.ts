/**
 * For Tally's own packages (server, CLI) and tests: the public API and what they need
 * beside it. Not a stable interface: it changes with them.
 */
export * from "./index.js";
export { tallyInternals, type TallyInternals } from "./tally.js";
export type { WebsiteDirectory, WebsiteRow } from "./websites/websites.js";
export { statsQuerySchema, totalsQuerySchema } from "./stats/stats-query.js";
export { plausibleQuerySchema } from "./stats/plausible-query.js";
export { PLAUSIBLE_DIMENSIONS } from "./stats/plausible-dimensions.js";
export { funnelQuerySchema, journeyQuerySchema } from "./stats/path-query.js";
export { funnelCreateSchema, funnelSchema } from "./websites/funnels.js";
export { alertCreateSchema, alertUpdateSchema, alertSchema, alertDeliverySchema, WEBHOOK_FORMATS } from "./alerts/alert-input.js";
export { ALERT_KINDS, ALERT_KIND_NAMES } from "./alerts/alert-kinds.js";
export { goalCreateSchema, goalSchema } from "./websites/goals.js";
export { annotationCreateSchema, annotationListQuery, annotationSchema, annotationUpdateSchema } from "./websites/annotations.js";
export { liveSchema } from "./stats/live.js";
export { propertyNamesQuerySchema, sessionHitSchema, sessionSchema, sessionsQuerySchema } from "./stats/sessions.js";
export { shareLinkCreateSchema, shareLinkSchema } from "./websites/share-links.js";
export { savedSegmentCreateSchema, savedSegmentSchema, savedSegmentUpdateSchema } from "./websites/saved-segments.js";
export { funnelResultSchema, journeyResultSchema } from "./model/path-schemas.js";
export type { UserRow } from "./accounts/users.js";
export { userCreateSchema, userUpdateSchema, invitationSchema, keyCreateSchema, passwordField } from "./accounts/user-input.js";
export { NO_MATCH } from "./accounts/users.js";
export { INVALID_LINK } from "./accounts/user-tokens.js";
export { INVALID_CODE, CURRENT_CODE_FIRST, recoveryCode } from "./accounts/two-factor.js";
export { PASSWORDS_BUSY, DEFAULT_SCRYPT_COST } from "./shared/passwords.js";
export { SESSION_LIFETIME_MS } from "./accounts/sessions.js";
export { parseDatabaseUrl, redactDatabaseUrl, DATABASE_URL_FORMS, type DatabaseLocation } from "./storage/database-url.js";
export { validate, choice, fallbackChoice, paginationQuery, sortDirection } from "./shared/validation.js";
export { normalizeDomain, stripWww } from "./websites/domain.js";
export { compileIpRules } from "./shared/exclusion-lists.js";
export { addressKey, ipVersion, stripMapped } from "./shared/client-address.js";
export { escapeHtml, htmlDocument, type HtmlDocument } from "./shared/html.js";
export { accountSchema } from "./accounts/account-schema.js";
export { accountUpdateSchema } from "./accounts/account-input.js";
export { websiteSchema } from "./websites/website-schema.js";
export { websiteCreateSchema, websiteUpdateSchema } from "./websites/website-input.js";
export { dayRangeSchema, realtimeSchema, statRowSchema, totalFiguresSchema, totalsSchema } from "./model/stats-schemas.js";
export { FILTER_LIMITS } from "./model/filters.js";
export { VISIT_COLUMNS, VISIT_DIMENSIONS } from "./model/dimensions.js";
export { COPIED_TABLES } from "./moving/copy.js";

// Parts that tests drive directly.
export { openDatabase } from "./open-database.js";
export { createKyselyStore } from "./ingest/kysely-store.js";
export { createRetention } from "./ingest/retention.js";
export { HOST_THREAD_ROW_BUDGET } from "./backends/sqlite/host-reads.js";
export { createSqliteWorkerStore } from "./backends/sqlite/worker-store.js";
export { createSqliteReadPool } from "./backends/sqlite/reads.js";
export { closingPeriods, coveringPeriods, periodEnd, widerPeriods } from "./model/periods.js";
export { DAY_ONLY } from "./model/stat-names.js";
export { dayNumber, dayText } from "./shared/calendar.js";
export { createUserAgentParser } from "./enrich/user-agent.js";
export { channelOf, clickIdOf } from "./enrich/channels.js";
export { sourceOf } from "./enrich/sources.js";
export { loadRegions, openGeoLookup, type GeoLookup } from "./enrich/geo.js";
export { revenueBody } from "./model/revenue-schemas.js";
// The parts of zod the CLI's environment schemas use, as this bundle holds them: one module
// loaded where zod's own package is 95 (all of zod re-exported would keep all of it in the bundle).
export { object as zodObject, string as zodString, NEVER as ZOD_NEVER, type ZodType, type infer as ZodInfer } from "zod";
export { parseClickhouseUrl, CLICKHOUSE_URL_FORMS } from "./backends/clickhouse/url.js";
export { schemaStatements, upgradeStatements, visitSchemaStatements } from "./backends/clickhouse/schema.js";
export { copyHitsFromClickhouse, copyHitsIntoClickhouse } from "./copy-database.js";
export { connectClickhouse, type ClickhouseClient } from "./backends/clickhouse/connect.js";
export { openHitLog } from "./backends/clickhouse/hit-log.js";
export { createBlockColumnStore } from "./stats/block-column-store.js";
