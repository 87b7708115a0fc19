import type { Generated } from "kysely";

/** A person of an account. `email` is lower-cased and unique within the account (one person may belong to several). */
export interface UsersTable {
  id: Generated<number>;
  account_id: number;
  email: string;
  /** scrypt (password-hash.ts); null for someone who signs in only through single sign-on. */
  password_hash: string | null;
  /** `owner`, `admin` or `viewer`. */
  role: string;
  /** Comma-separated website ids the user is limited to; null for all of the account's. */
  websites: string | null;
  /** Base32 TOTP secret once confirmed; null without two-factor sign-in. */
  totp_secret: string | null;
  /** A secret shown for setup, not confirmed by a code yet. */
  totp_pending: string | null;
  /** The last 30-second step a code was accepted for: a code is good once. */
  totp_last_step: Generated<number>;
  created_at: string;
}

/** A signed-in browser: the cookie holds the token, this table its SHA-256. Deleting the row signs it out. */
export interface SessionsTable {
  id: string;
  user_id: number;
  /** `full`, or `second_factor` while only the password has been given. */
  stage: string;
  created_at: string;
  /** Epoch ms. */
  expires_at: number;
  /** While the person chooses among their accounts (the password matched several users): the other users' ids, comma-separated. */
  choices: string | null;
}

/** Invitations and password resets: single-use tokens, stored as SHA-256. */
export interface UserTokensTable {
  id: string;
  kind: string;
  account_id: number;
  /** The user a reset is for; null for an invitation (the user is created on acceptance). */
  user_id: number | null;
  email: string;
  role: string;
  websites: string | null;
  created_at: string;
  expires_at: number;
  used_at: string | null;
  /** The user who sent an invitation (null: an account-wide key, the CLI or the host's sign-in); it ends with their removal or demotion. */
  invited_by: number | null;
}

/** One-time recovery codes of a user's two-factor sign-in, stored as SHA-256. */
export interface RecoveryCodesTable {
  id: Generated<number>;
  user_id: number;
  hash: string;
  used_at: string | null;
}

/**
 * One window of a sign-in limit: attempts reserved in it, when it ends, and (past the limit,
 * for limits that slow down instead of blocking) when the next attempt may come. `key` is a
 * digest made with the server secret of what is counted (an address, an e-mail, a user).
 */
export interface AttemptsTable {
  key: string;
  count: number;
  window_ends: number;
  next_at: number;
}

/** Where a person signed in lately: a digest of their e-mail and client address, kept 90 days. */
export interface FamiliarPlacesTable {
  key: string;
  expires_at: number;
}

/** The server secret Tally made when none was configured (`secret`, TALLY_SECRET). */
export interface ServerSecretsTable {
  name: string;
  value: string;
}
