import type { AttemptLimit, Counted, Reservation, Tally } from "@tally-analytics/core";
import { clientKey } from "./client-limits.js";

const MINUTE = 60_000;

/**
 * The sign-in limits. Every attempt is reserved in the database before it is checked, so a
 * burst sent at once costs at most the limit in checks, whatever the number of processes.
 * Only failures count: a check that passes gives its attempt back. A key an attacker can
 * spend from anywhere (an e-mail address, a user) slows down instead of blocking, and not
 * at all from a place the person signed in from lately; a key of one client address blocks.
 */
export const LIMITS = {
  /** Wrong passwords per e-mail address and client address: then that pair waits out the window. */
  passwordFromAddress: { limit: 10, windowMs: 15 * MINUTE },
  /** Per e-mail address from anywhere: then one attempt every 3 minutes, none held back from a familiar place. */
  password: { limit: 10, windowMs: 15 * MINUTE, slowDownMs: 3 * MINUTE },
  /** Per client address, every kind of failure together (an office behind one address has many people who mistype). */
  address: { limit: 30, windowMs: 15 * MINUTE },
  /** Wrong two-factor or recovery codes per user and client address. */
  codeFromAddress: { limit: 5, windowMs: 15 * MINUTE },
  /** Per user from anywhere: then one every 5 minutes, none held back from a familiar place. */
  code: { limit: 5, windowMs: 15 * MINUTE, slowDownMs: 5 * MINUTE },
  /** Reset mails per e-mail and client address (each request counts): enough for a lost mail, not a mail bomb. */
  resetFromAddress: { limit: 5, windowMs: 60 * MINUTE },
  /** Per e-mail from anywhere: then one every 12 minutes, none held back from a familiar place. */
  reset: { limit: 5, windowMs: 60 * MINUTE, slowDownMs: 12 * MINUTE },
  /** Wrong share passwords per website and client address. */
  sharePassword: { limit: 10, windowMs: 15 * MINUTE },
} as const satisfies Record<string, AttemptLimit>;

/** Who a request is, for the limits: its client address (proxies resolved), and the tally behind it. */
export interface Asker {
  tally: Tally;
  request: Request;
  ip: string | undefined;
}

const addressOf = ({ tally, request, ip }: Asker) => clientKey(tally, request, ip);

/** The place a person signs in from: their e-mail and client address. */
const placeOf = (asker: Asker, email: string) => `${email}|${addressOf(asker)}`;

/** The keys an attempt of one kind counts against: per address and `who`, per address alone, and per `who` unless the place is familiar. */
async function keysOf(
  asker: Asker,
  who: string,
  kind: { fromAddress: AttemptLimit; anywhere: AttemptLimit; familiarEmail?: string },
): Promise<Counted[]> {
  const address = addressOf(asker);
  const familiar = kind.familiarEmail !== undefined && (await asker.tally.team.attempts.familiar(placeOf(asker, kind.familiarEmail)));
  return [
    { key: `${who}|${address}`, limit: kind.fromAddress },
    { key: `address:${address}`, limit: LIMITS.address },
    ...(familiar ? [] : [{ key: who, limit: kind.anywhere }]),
  ];
}

/** An attempt reserved, or the seconds to wait. */
export type Reserved = Reservation | number;

export const reservePassword = async (asker: Asker, email: string): Promise<Reserved> =>
  asker.tally.team.attempts.reserve(
    await keysOf(asker, `password:${email}`, { fromAddress: LIMITS.passwordFromAddress, anywhere: LIMITS.password, familiarEmail: email }),
  );

export const reserveCode = async (asker: Asker, user: { id: number; email: string }): Promise<Reserved> =>
  asker.tally.team.attempts.reserve(
    await keysOf(asker, `code:${user.id}`, { fromAddress: LIMITS.codeFromAddress, anywhere: LIMITS.code, familiarEmail: user.email }),
  );

export const reserveReset = async (asker: Asker, email: string): Promise<Reserved> =>
  asker.tally.team.attempts.reserve(
    await keysOf(asker, `reset:${email}`, { fromAddress: LIMITS.resetFromAddress, anywhere: LIMITS.reset, familiarEmail: email }),
  );

/** Sign-up guesses an account's key: counted per address only (a key has 256 bits: nothing to slow down). */
export const reserveSignUp = (asker: Asker): Promise<Reserved> =>
  asker.tally.team.attempts.reserve([{ key: `address:${addressOf(asker)}`, limit: LIMITS.address }]);

export const reserveSharePassword = (asker: Asker, websiteId: number): Promise<Reserved> => {
  const address = addressOf(asker);
  return asker.tally.team.attempts.reserve([
    { key: `share:${websiteId}|${address}`, limit: LIMITS.sharePassword },
    { key: `address:${address}`, limit: LIMITS.address },
  ]);
};

/** Remembers where a person signed in from: their own slow-downs do not apply there for 90 days. */
export const rememberPlace = (asker: Asker, email: string): Promise<void> => asker.tally.team.attempts.remember(placeOf(asker, email));

/**
 * Runs `check` under a reservation: an answer of `passed` gives the attempt back; any other
 * answer keeps it counted, except an error thrown before anything was checked (the password
 * queue full, a store fault), which gives it back too.
 */
export async function underReservation<T>(reservation: Reservation, check: () => Promise<T>, passed: (answer: T) => boolean): Promise<T> {
  let answer: T;
  try {
    answer = await check();
  } catch (error) {
    await reservation.release();
    throw error;
  }
  if (passed(answer)) await reservation.release();
  return answer;
}
