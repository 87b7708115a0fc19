import type { Kysely } from "kysely";
import { newSecretToken, tokenId } from "./secret-token.js";
import type { Database } from "../storage/schema.js";

/**
 * `full`: signed in; `second_factor`: the password was right, the code is still due;
 * `choose`: the password was right for the person's users of several accounts, which one is still due.
 */
export type SessionStage = "full" | "second_factor" | "choose";
const STAGES: readonly SessionStage[] = ["full", "second_factor", "choose"];

/** A full session lasts two weeks from sign-in (absolute: it is not extended by use). */
export const SESSION_LIFETIME_MS = 14 * 86_400_000;
/** Time to type the code after the password. */
export const SECOND_FACTOR_LIFETIME_MS = 10 * 60_000;

export interface SessionFound {
  userId: number;
  stage: SessionStage;
  /** At the `choose` stage: every user the person may go on as (`userId` first). */
  choices: number[];
}

export interface Sessions {
  /** A new session (never an existing one: a sign-in always gets a fresh token); `others`: the other users a `choose` session may become. */
  start(userId: number, stage: SessionStage, others?: readonly number[]): Promise<string>;
  find(token: string): Promise<SessionFound | null>;
  end(token: string): Promise<void>;
  /** Signs the user out everywhere (password reset, removal, two-factor reset). */
  endAll(userId: number): Promise<void>;
}

export function createSessions(db: Kysely<Database>): Sessions {
  return {
    async start(userId, stage, others = []) {
      const token = newSecretToken();
      const lifetime = stage === "full" ? SESSION_LIFETIME_MS : SECOND_FACTOR_LIFETIME_MS;
      await db
        .insertInto("sessions")
        .values({
          id: tokenId(token),
          user_id: userId,
          stage,
          created_at: new Date().toISOString(),
          expires_at: Date.now() + lifetime,
          choices: others.length === 0 ? null : others.join(","),
        })
        .execute();
      // Expired rows of anyone go on the way: no timer needed.
      await db.deleteFrom("sessions").where("expires_at", "<", Date.now()).execute();
      return token;
    },
    async find(token) {
      if (token.length < 32 || token.length > 64) return null;
      const row = await db
        .selectFrom("sessions")
        .select(["user_id", "stage", "expires_at", "choices"])
        .where("id", "=", tokenId(token))
        .executeTakeFirst();
      if (!row || Number(row.expires_at) <= Date.now()) return null;
      const stage = STAGES.find((known) => known === row.stage) ?? "second_factor";
      const others = stage === "choose" && row.choices ? row.choices.split(",").map(Number) : [];
      return { userId: Number(row.user_id), stage, choices: stage === "choose" ? [Number(row.user_id), ...others] : [] };
    },
    async end(token) {
      await db.deleteFrom("sessions").where("id", "=", tokenId(token)).execute();
    },
    async endAll(userId) {
      await db.deleteFrom("sessions").where("user_id", "=", userId).execute();
    },
  };
}
