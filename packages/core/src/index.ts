/**
 * What apps use: `createTally`, the types of its answers and options, its errors.
 * What the server and CLI need beside it is `@tally-analytics/core/internal`.
 */
export { createTally } from "./tally.js";
export type { Tally, TallyOptions, TrustProxy, TypedTally } from "./tally.js";
export type { DatabaseOption } from "./open-database.js";
export type { SqliteDatabaseLike, PostgresPoolLike } from "./storage/connection.js";
export type { Account, Accounts, CreatedKey } from "./accounts/accounts.js";
export type { Team, SessionAccess, KeyAccess, InvitationSent, AccountChoice } from "./accounts/team.js";
export type { InvitationListing } from "./accounts/user-tokens.js";
export type { Attempts, AttemptLimit, Counted, Reservation } from "./accounts/attempts.js";
export type { PasswordOptions, ScryptCost } from "./shared/passwords.js";
export type { SecretOption } from "./accounts/server-secret.js";
export type { User, Users, KeyListing, UserKey } from "./accounts/users.js";
export type { SessionStage } from "./accounts/sessions.js";
export type { TwoFactorSetup } from "./accounts/two-factor.js";
export {
  ROLES,
  KEY_SCOPES,
  canWrite,
  canManageAccount,
  canSeeWebsite,
  isRole,
  type Access,
  type Role,
  type KeyScope,
} from "./accounts/access.js";
export type { Website, Websites, ListWebsitesOptions, Page } from "./websites/websites.js";
export type { WebsiteInput } from "./websites/website-input.js";
export type { HitInput } from "./model/hit-input.js";
export type { AnyEvents, AppTransaction, EventMap, EventName, EventPropValue, RecordArgs, RecordInput, TypedHit } from "./model/events.js";
export type { CollectResult } from "./ingest/collector.js";
export type { Stats, StatsPage, Totals, TotalFigures } from "./stats/stats.js";
export type { DayRange } from "./stats/count-reader.js";
export type { Realtime } from "./stats/realtime.js";
export type { Live } from "./stats/live.js";
export type { Session, SessionHit, SessionsPage } from "./stats/sessions.js";
export type { SessionsQueryInput } from "./stats/path-stats.js";
export type { DroppedHit } from "./ingest/drop-log.js";
export type { PlausibleAnswer } from "./stats/plausible-answer.js";
export { PlausibleQueryError } from "./stats/plausible-query-error.js";
export type { StatRow, StatsQuery, StatsQueryInput, TotalsQuery, TotalsQueryInput } from "./stats/stats-query.js";
export { ENGAGEMENT_STATISTICS, STAT_NAMES, type EngagementStatistic, type StatName } from "./model/stat-names.js";
export type { CountStats, PlausibleOptions } from "./stats/stats.js";
export type { PathStats } from "./stats/path-stats.js";
export type { Funnel, FunnelInput, Funnels } from "./websites/funnels.js";
export type { Goal, GoalInput, Goals } from "./websites/goals.js";
export type { Annotation, AnnotationInput, Annotations } from "./websites/annotations.js";
export type { SavedSegment, SavedSegmentInput, SavedSegments, SegmentViewer } from "./websites/saved-segments.js";
export type { ShareLink, ShareLinks } from "./websites/share-links.js";
export type { FunnelQuery, FunnelQueryInput, JourneyQuery, JourneyQueryInput } from "./stats/path-query.js";
export type { FunnelResult, FunnelRow, JourneyLink, JourneyNode, JourneyResult } from "./model/path-schemas.js";
export { TallyError, NotFoundError, ValidationError, UnauthorizedError, UnavailableError } from "./shared/errors.js";
export { MissingDependencyError } from "./shared/lazy-require.js";
export type { AccountInput, ReportPeriod } from "./accounts/account-input.js";
export type { MailMessage, MailOptions } from "./shared/mailer.js";
export type { Report, ReportOptions, Reports, RunSummary } from "./reports/reports.js";
export type { WebsiteReport } from "./reports/report-data.js";
export type { Alerts, AlertOptions, AlertRunSummary } from "./alerts/alerts.js";
export type { Alert, AlertDelivery, AlertInput, AlertChannel, WebhookFormat } from "./alerts/alert-input.js";
export type { AlertPayload } from "./alerts/alert-messages.js";
export type { AlertKindName } from "./alerts/alert-kinds.js";
export type { ReportRange } from "./reports/report-period.js";
export type { ImportOptions, ImportProgress, ImportSummary } from "./moving/importer.js";
export type { ImportFormat } from "./moving/import-items.js";
export type { ExportFormat, ExportOptions, WebsiteExport } from "./moving/exporter.js";
export { ImportFileError } from "./moving/csv-records.js";
export { copyDatabase } from "./copy-database.js";
export type { CopyOptions, CopyProgress, CopyResult } from "./moving/copy.js";
