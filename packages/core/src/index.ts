export { createTally } from "./tally.js";
export type { Tally, TallyOptions, TrustProxy } from "./tally.js";
export type { DatabaseOption, SqliteDatabaseLike, PostgresPoolLike } from "./database/open-database.js";
export type { Account, Accounts, CreatedKey } from "./accounts/accounts.js";
export type { Website, Websites, ListWebsitesOptions, Page, WebsiteRow } from "./websites/websites.js";
export type { WebsiteInput } from "./websites/website-input.js";
export { normalizeDomain, stripWww } from "./websites/domain.js";
export { TallyError, NotFoundError, ValidationError, UnauthorizedError, UnavailableError } from "./errors.js";
