import type { Generated } from "kysely";

/** Row types of every table Tally owns, as kysely sees them. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  websites: WebsitesTable;
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
