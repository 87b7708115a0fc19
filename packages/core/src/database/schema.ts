import type { Generated } from "kysely";

/** Row types of every table Tally owns, as kysely sees them. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  websites: WebsitesTable;
  salts: SaltsTable;
  visitors: VisitorsTable;
  rollups: RollupsTable;
}

export interface SaltsTable {
  /** The local day the salt hashes visitors of, `Y-m-d`. */
  day: string;
  salt: string;
}

export interface VisitorsTable {
  /** Salted hash of (day, website, IP, user agent): no IP or user agent is stored. */
  hash: string;
  website_id: number;
  day: string;
  /** Epoch milliseconds of the visitor's last hit; 0 for a row just claimed. */
  last_seen: number;
  visit_referrer: string;
  visit_campaign: string;
  /** Per-visitor values already counted today (resolutions, languages), one per line. */
  seen: string;
}

export interface RollupsTable {
  website_id: number;
  name: string;
  /** `Y-m-d`, `Y-m` or `Y` in the website's time zone. */
  period: string;
  value: string;
  count: number;
}

export interface AccountsTable {
  id: Generated<number>;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  /** First characters of the key, shown in listings and used to revoke it. */
  prefix: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface WebsitesTable {
  id: Generated<number>;
  account_id: number;
  domain: string;
  privacy: number;
  /** scrypt hash, or null when no password is set. */
  password_hash: string | null;
  email: number;
  exclude_bots: number;
  exclude_params: string;
  exclude_ips: string;
  timezone: string;
  created_at: string;
  updated_at: string;
}
