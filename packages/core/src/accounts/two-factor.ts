import { randomInt } from "node:crypto";
import type { Kysely } from "kysely";
import type * as OtpAuth from "otpauth";
import { lazyRequire } from "../shared/lazy-require.js";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import type { Keyring } from "../shared/keyring.js";
import { tokenId } from "./secret-token.js";
import type { Database } from "../storage/schema.js";

/** RFC 6238 defaults, what every authenticator app reads: SHA-1, 6 digits, 30 s. */
const PERIOD_S = 30;
/** One step either side: a phone clock 30 s off still works. */
const WINDOW = 1;
const RECOVERY_CODES = 10;

export const INVALID_CODE = "The code is invalid.";
export const CURRENT_CODE_FIRST = "Two-factor sign-in is on: give a code from your current app (or a recovery code) to set up a new one.";

export interface TwoFactorSetup {
  /** Base32, for typing into an app by hand. */
  secret: string;
  /** `otpauth://totp/…`, what a QR code would hold. */
  uri: string;
}

export interface TwoFactor {
  /**
   * A new secret to scan; sign-in does not ask for it until `confirm`. When two-factor sign-in
   * is on already, `code` must be one of the current secret's (or a recovery code): a stolen
   * session cannot swap the factor for its own.
   */
  begin(userId: number, code?: string): Promise<TwoFactorSetup>;
  /** Turns two-factor sign-in on with a code from the new secret; returns recovery codes, shown this once. */
  confirm(userId: number, code: string): Promise<string[]>;
  /** Checks a code from the app (each accepted once) or an unused recovery code. */
  verify(userId: number, code: string): Promise<boolean>;
  /** Turns it off and voids the recovery codes (the user's choice, or `tally users reset-2fa`). */
  disable(userId: number): Promise<void>;
}

const otpauth = lazyRequire<typeof OtpAuth>("otpauth");
const totpOf = (secret: string, label: string) =>
  new (otpauth().TOTP)({
    issuer: "Tally",
    label,
    algorithm: "SHA1",
    digits: 6,
    period: PERIOD_S,
    secret: otpauth().Secret.fromBase32(secret),
  });

/** `abcd-efgh-jkmn`: 12 characters of 31, each drawn uniformly (59 bits), from an alphabet without look-alikes. */
export function recoveryCode(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const chars = Array.from({ length: 12 }, () => alphabet[randomInt(alphabet.length)]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
}
const normalizeRecovery = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");

/** Two-factor secrets are stored sealed with the server secret (`keyring`): a copy of the database alone does not hold them. */
export function createTwoFactor(db: Kysely<Database>, keyring: Keyring): TwoFactor {
  /** A stored secret as the app has it; one stored before encryption reads as it is. */
  const opened = (stored: string | null) => (stored === null ? null : (keyring.open(stored) ?? stored));

  async function user(userId: number) {
    const row = await db
      .selectFrom("users")
      .select(["email", "totp_secret", "totp_pending", "totp_last_step"])
      .where("id", "=", userId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError();
    return { ...row, totp_secret: opened(row.totp_secret), totp_pending: opened(row.totp_pending) };
  }

  /** The step a code matches, or null. */
  function matchingStep(secret: string, email: string, code: string): number | null {
    const token = code.replace(/\s/g, "");
    if (!/^\d{6}$/.test(token)) return null;
    const now = Date.now();
    const delta = totpOf(secret, email).validate({ token, timestamp: now, window: WINDOW });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
  }

  /**
   * Records `step` as used, only if it is later than the last one used: a code seen once
   * (a shoulder, a proxy log) is refused for the rest of its window, and of two requests
   * racing with one code only one wins.
   */
  async function claimStep(userId: number, step: number): Promise<boolean> {
    const result = await db
      .updateTable("users")
      .set({ totp_last_step: step })
      .where("id", "=", userId)
      .where("totp_last_step", "<", step)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async function useRecoveryCode(userId: number, code: string): Promise<boolean> {
    const normalized = normalizeRecovery(code);
    if (normalized.length !== 12) return false;
    const result = await db
      .updateTable("recovery_codes")
      .set({ used_at: new Date().toISOString() })
      .where("user_id", "=", userId)
      .where("hash", "=", tokenId(normalized))
      .where("used_at", "is", null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async function verify(userId: number, code: string): Promise<boolean> {
    const { email, totp_secret: secret } = await user(userId);
    if (secret === null) return false;
    const step = matchingStep(secret, email, code);
    if (step !== null) return claimStep(userId, step);
    return useRecoveryCode(userId, code);
  }

  return {
    async begin(userId, code) {
      const { email, totp_secret: current } = await user(userId);
      if (current !== null && !(code !== undefined && (await verify(userId, code))))
        throw ValidationError.field("code", CURRENT_CODE_FIRST);
      const secret = new (otpauth().Secret)({ size: 20 }).base32;
      await db
        .updateTable("users")
        .set({ totp_pending: keyring.seal(secret) })
        .where("id", "=", userId)
        .execute();
      return { secret, uri: totpOf(secret, email).toString() };
    },

    async confirm(userId, code) {
      const { email, totp_pending: pending } = await user(userId);
      if (pending === null) throw ValidationError.field("code", "Start the set-up first.");
      const step = matchingStep(pending, email, code);
      if (step === null) throw ValidationError.field("code", INVALID_CODE);
      const codes = Array.from({ length: RECOVERY_CODES }, recoveryCode);
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable("users")
          .set({ totp_secret: keyring.seal(pending), totp_pending: null, totp_last_step: step })
          .where("id", "=", userId)
          .execute();
        await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
        await trx
          .insertInto("recovery_codes")
          .values(codes.map((code) => ({ user_id: userId, hash: tokenId(normalizeRecovery(code)), used_at: null })))
          .execute();
      });
      return codes;
    },

    verify,

    async disable(userId) {
      await user(userId);
      await db.transaction().execute(async (trx) => {
        await trx.updateTable("users").set({ totp_secret: null, totp_pending: null }).where("id", "=", userId).execute();
        await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
      });
    },
  };
}
