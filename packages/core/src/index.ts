export { createTally } from "./tally.js";
export type { Tally, TallyOptions, TrustProxy } from "./tally.js";
export type { DatabaseOption, SqliteDatabaseLike, PostgresPoolLike } from "./database/open-database.js";
export { parseDatabaseUrl, redactDatabaseUrl, DATABASE_URL_FORMS, type DatabaseLocation } from "./database/database-url.js";
export type { Account, Accounts, CreatedKey } from "./accounts/accounts.js";
export type { Team, SessionAccess, InvitationSent } from "./accounts/team.js";
export type { User, Users, UserRow, KeyListing, UserKey } from "./accounts/users.js";
export type { SessionStage } from "./accounts/sessions.js";
export type { TwoFactorSetup } from "./accounts/two-factor.js";
export { ROLES, KEY_SCOPES, canWrite, canManageAccount, canSeeWebsite, isRole, type Access, type Role, type KeyScope } from "./accounts/access.js";
export { userCreateSchema, userUpdateSchema, invitationSchema, keyCreateSchema, passwordField } from "./accounts/user-input.js";
export { NO_MATCH } from "./accounts/users.js";
export { INVALID_LINK } from "./accounts/user-tokens.js";
export { INVALID_CODE } from "./accounts/two-factor.js";
export { SESSION_LIFETIME_MS } from "./accounts/sessions.js";
export type { Website, Websites, ListWebsitesOptions, Page, WebsiteRow } from "./websites/websites.js";
export type { WebsiteInput } from "./websites/website-input.js";
export type { HitInput } from "./engine/hit-input.js";
export type { CollectResult } from "./engine/collector.js";
export type { Stats, StatsPage, Totals, TotalFigures } from "./stats/stats.js";
export type { DayRange } from "./stats/reader.js";
export type { Realtime } from "./stats/realtime.js";
export {
  statsQuerySchema,
  totalsQuerySchema,
  type StatRow,
  type StatsQuery,
  type StatsQueryInput,
  type TotalsQuery,
  type TotalsQueryInput,
} from "./stats/stats-query.js";
export { STAT_NAMES, type StatName } from "./stats/stat-names.js";
export { validate, choice, paginationQuery, sortDirection } from "./validation.js";
export { normalizeDomain, stripWww } from "./websites/domain.js";
export { compileIpRules } from "./websites/exclusion-lists.js";
export { TallyError, NotFoundError, ValidationError, UnauthorizedError, UnavailableError } from "./errors.js";
export type { AccountInput, ReportPeriod } from "./accounts/account-input.js";
export type { MailMessage, MailOptions } from "./reports/mailer.js";
export type { Report, ReportOptions, Reports, RunSummary } from "./reports/reports.js";
export type { WebsiteReport } from "./reports/report-data.js";
export type { ReportRange } from "./reports/report-period.js";
export { escapeHtml, htmlDocument, type HtmlDocument } from "./html.js";
export { accountSchema } from "./accounts/account-schema.js";
export { accountUpdateSchema } from "./accounts/account-input.js";
export { websiteSchema } from "./websites/website-schema.js";
export { websiteCreateSchema, websiteUpdateSchema } from "./websites/website-input.js";
export { dayRangeSchema, realtimeSchema, statRowSchema, totalFiguresSchema, totalsSchema } from "./stats/stats-schemas.js";
export { FILTER_LIMITS, VISIT_DIMENSIONS } from "./stats/filters.js";
export type { ImportOptions, ImportProgress, ImportSummary } from "./moving/importer.js";
export type { ImportFormat } from "./moving/import-items.js";
export type { ExportFormat, ExportOptions, WebsiteExport } from "./moving/exporter.js";
export { ImportFileError } from "./moving/csv-records.js";
export { copyDatabase, COPIED_TABLES, type CopyOptions, type CopyProgress, type CopyResult } from "./moving/copy.js";
