import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type * as OtpAuth from "otpauth";
import { lazyRequire } from "../shared/lazy-require.js";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import { tokenId } from "./secret-token.js";
import type { Database } from "../storage/schema.js";

/** RFC 6238 defaults, what every authenticator app reads: SHA-1, 6 digits, 30 s. */
const PERIOD_S = 30;
/** One step either side: a phone clock 30 s off still works. */
const WINDOW = 1;
const RECOVERY_CODES = 10;

export const INVALID_CODE = "The code is invalid.";

export interface TwoFactorSetup {
  /** Base32, for typing into an app by hand. */
  secret: string;
  /** `otpauth://totp/…`, what a QR code would hold. */
  uri: string;
}

export interface TwoFactor {
  /** A new secret to scan; sign-in does not ask for it until `confirm`. */
  begin(userId: number): Promise<TwoFactorSetup>;
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

/** `abcd-efgh-jkmn`: 60 bits from an alphabet without look-alikes. */
function recoveryCode(): string {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  const chars = [...randomBytes(12)].map((byte) => alphabet[byte % alphabet.length]).join("");
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
}
const normalizeRecovery = (code: string) =>
  code
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");

export function createTwoFactor(db: Kysely<Database>): TwoFactor {
  async function user(userId: number) {
    const row = await db
      .selectFrom("users")
      .select(["email", "totp_secret", "totp_pending", "totp_last_step"])
      .where("id", "=", userId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError();
    return row;
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

  return {
    async begin(userId) {
      const { email } = await user(userId);
      const secret = new (otpauth().Secret)({ size: 20 }).base32;
      await db.updateTable("users").set({ totp_pending: secret }).where("id", "=", userId).execute();
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
          .set({ totp_secret: pending, totp_pending: null, totp_last_step: step })
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

    async verify(userId, code) {
      const { email, totp_secret: secret } = await user(userId);
      if (secret === null) return false;
      const step = matchingStep(secret, email, code);
      if (step !== null) return claimStep(userId, step);
      return useRecoveryCode(userId, code);
    },

    async disable(userId) {
      await user(userId);
      await db.transaction().execute(async (trx) => {
        await trx.updateTable("users").set({ totp_secret: null, totp_pending: null }).where("id", "=", userId).execute();
        await trx.deleteFrom("recovery_codes").where("user_id", "=", userId).execute();
      });
    },
  };
}
