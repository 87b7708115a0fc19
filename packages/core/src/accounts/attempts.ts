import { sql, type Kysely } from "kysely";
import type { Keyring } from "../shared/keyring.js";
import type { Database } from "../storage/schema.js";

/** How many attempts of one kind a key may make in a window. */
export interface AttemptLimit {
  limit: number;
  windowMs: number;
  /**
   * Past the limit, one more attempt every this many milliseconds instead of none: a
   * slow-down, not a block, for keys an attacker can spend from anywhere (an e-mail address).
   */
  slowDownMs?: number;
}

/** One thing an attempt counts against: `key` names it (`email:ada@example.com`), `limit` says how much it may. */
export interface Counted {
  key: string;
  limit: AttemptLimit;
}

/** Attempts reserved before the check; a check that passed gives them back (only failures count). */
export interface Reservation {
  release(): Promise<void>;
}

export interface Attempts {
  /**
   * Reserves one attempt against every key's limit, all or none, before anything is
   * checked: each key is one statement that counts the attempt only if the key has room,
   * so of a burst sent at once (from any number of processes on the database) exactly
   * the room passes. Answers the reservation, or the seconds to wait.
   */
  reserve(counted: readonly Counted[]): Promise<Reservation | number>;
  /** Whether `place` (a person's e-mail and client address) signed in lately. */
  familiar(place: string): Promise<boolean>;
  /** Remembers a place a person signed in from, for 90 days. */
  remember(place: string): Promise<void>;
}

/** A time as a parameter PostgreSQL types as bigint wherever it stands (a CASE branch would make it an integer). */
const bigint = (value: number) => sql<number>`cast(${value} as bigint)`;

const FAMILIAR_FOR_MS = 90 * 86_400_000;
const SWEEP_EVERY_MS = 60_000;

/**
 * Sign-in limits kept in the database, so every process on it counts the same attempts.
 * Keys are stored as digests made with the server secret: no address or e-mail in the table.
 */
export function createAttempts(db: Kysely<Database>, keyring: Keyring, now: () => number = Date.now): Attempts {
  let nextSweep = 0;

  async function sweep(time: number): Promise<void> {
    if (time < nextSweep) return;
    nextSweep = time + SWEEP_EVERY_MS;
    await db.deleteFrom("attempts").where("window_ends", "<=", time).execute();
    await db.deleteFrom("familiar_places").where("expires_at", "<=", time).execute();
  }

  /** One statement: counts the attempt when the key has room (a new window, room left, or the slow-down's next turn). */
  async function take(key: string, { limit, windowMs, slowDownMs = 0 }: AttemptLimit, time: number): Promise<boolean> {
    const ended = sql<boolean>`attempts.window_ends <= ${time}`;
    const counted = sql<number>`case when ${ended} then 1 else attempts.count + 1 end`;
    const row = await db
      .insertInto("attempts")
      .values({ key, count: 1, window_ends: time + windowMs, next_at: limit <= 1 && slowDownMs > 0 ? time + slowDownMs : 0 })
      .onConflict((oc) =>
        oc
          .column("key")
          .doUpdateSet({
            count: counted,
            window_ends: sql`case when ${ended} then ${bigint(time + windowMs)} else attempts.window_ends end`,
            next_at: sql`case when ${counted} >= ${limit} then ${bigint(time + slowDownMs)} else ${bigint(0)} end`,
          })
          .where((eb) =>
            eb.or([
              eb("attempts.window_ends", "<=", time),
              eb("attempts.count", "<", limit),
              ...(slowDownMs > 0 ? [eb("attempts.next_at", "<=", time)] : []),
            ]),
          ),
      )
      .returning("count")
      .executeTakeFirst();
    return row !== undefined;
  }

  async function giveBack(key: string, time: number): Promise<void> {
    await db
      .updateTable("attempts")
      .set({ count: sql`count - 1` })
      .where("key", "=", key)
      .where("count", ">", 0)
      .where("window_ends", ">", time)
      .execute();
  }

  /** Seconds until a spent key has room again. */
  async function waitOf(key: string, { limit, slowDownMs = 0 }: AttemptLimit, time: number): Promise<number> {
    const row = await db.selectFrom("attempts").select(["count", "window_ends", "next_at"]).where("key", "=", key).executeTakeFirst();
    if (!row) return 1;
    const until =
      slowDownMs > 0 && Number(row.count) >= limit ? Math.min(Number(row.next_at), Number(row.window_ends)) : Number(row.window_ends);
    return Math.max(1, Math.ceil((until - time) / 1000));
  }

  return {
    async reserve(counted) {
      const time = now();
      await sweep(time);
      const taken: string[] = [];
      for (const { key, limit } of counted) {
        const digest = keyring.digest(`attempt:${key}`);
        if (await take(digest, limit, time)) {
          taken.push(digest);
          continue;
        }
        for (const earlier of taken) await giveBack(earlier, time);
        return waitOf(digest, limit, time);
      }
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          for (const digest of taken) await giveBack(digest, time);
        },
      };
    },
    async familiar(place) {
      const row = await db
        .selectFrom("familiar_places")
        .select("expires_at")
        .where("key", "=", keyring.digest(`place:${place}`))
        .executeTakeFirst();
      return row !== undefined && Number(row.expires_at) > now();
    },
    async remember(place) {
      const expires = now() + FAMILIAR_FOR_MS;
      await db
        .insertInto("familiar_places")
        .values({ key: keyring.digest(`place:${place}`), expires_at: expires })
        .onConflict((oc) => oc.column("key").doUpdateSet({ expires_at: expires }))
        .execute();
    },
  };
}
