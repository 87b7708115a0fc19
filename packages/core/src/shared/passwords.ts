import { availableParallelism } from "node:os";
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { UnavailableError } from "./errors.js";

/** scrypt's cost: N = 2^logN, block size r, parallelism p. Memory is 128·N·r bytes. */
export interface ScryptCost {
  logN: number;
  r: number;
  p: number;
}

/**
 * N = 2^15, r = 8, p = 3: one of OWASP's equivalent scrypt settings (the Password Storage
 * Cheat Sheet lists N=2^17/p=1 … N=2^13/p=10 as equal work). This one needs 32 MiB per hash
 * instead of 128 MiB, so a burst of sign-ins cannot take a small server's memory, and its
 * work (p = 3) stays at the recommended level: about a second of one core.
 */
export const DEFAULT_SCRYPT_COST: ScryptCost = { logN: 15, r: 8, p: 3 };

/** What the hashes of website passwords made before the cost travelled with them used: Node's defaults. */
const UNMARKED_COST: ScryptCost = { logN: 14, r: 8, p: 1 };

export interface PasswordOptions {
  /**
   * scrypt's cost for new hashes. Each hash keeps the cost it was made with, so a hash made
   * at another cost still verifies (at its own cost). Lower it only in tests.
   * @default { logN: 15, r: 8, p: 3 }
   */
  cost?: ScryptCost;
  /**
   * Password checks (and hashes) running at once. Each takes about a second of one core at
   * the default cost, so this bounds the share of the host's CPU a flood of sign-ins can take.
   * @default half the cores, at least 1
   */
  concurrent?: number;
  /**
   * Checks waiting for a turn; past them a check is refused at once with UnavailableError
   * (HTTP 503 with `Retry-After`) instead of queueing without bound.
   * @default 4 × concurrent
   */
  queued?: number;
}

export interface Passwords {
  /** `scrypt$<logN>$<r>$<p>$<salt>$<key>` (base64url): the cost travels with the hash. */
  hash(password: string): Promise<string>;
  /**
   * True when `password` matches `stored`. A null or malformed hash is checked against a
   * decoy of the current cost and never matches, so "no such user" takes as long as "wrong password".
   */
  verify(password: string, stored: string | null): Promise<boolean>;
  /** False while every turn and every place in the queue is taken: a check now would be refused (and costs nothing to ask). */
  available(): boolean;
}

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
export const PASSWORDS_BUSY = "Too many password checks at once: try again in a moment.";

/** Rejects a cost scrypt would refuse or that could not protect anything. */
export function checkScryptCost(cost: ScryptCost): ScryptCost {
  const whole = (value: number, min: number, max: number) => Number.isInteger(value) && value >= min && value <= max;
  if (!whole(cost.logN, 4, 22) || !whole(cost.r, 1, 32) || !whole(cost.p, 1, 16))
    throw new TypeError(`passwords.cost must be { logN: 4–22, r: 1–32, p: 1–16 }, got ${JSON.stringify(cost)}`);
  return cost;
}

function derive(password: string, salt: Buffer, { logN, r, p }: ScryptCost): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** The cost, salt and key of a stored hash; null when it is none Tally made. */
function parseHash(stored: string | null): { cost: ScryptCost; salt: Buffer; key: Buffer } | null {
  const parts = (stored ?? "").split("$");
  if (parts[0] !== "scrypt") return null;
  if (parts.length === 3 && parts[1] && parts[2])
    return { cost: UNMARKED_COST, salt: Buffer.from(parts[1], "base64url"), key: Buffer.from(parts[2], "base64url") };
  if (parts.length !== 6 || !parts[4] || !parts[5]) return null;
  const cost = { logN: Number(parts[1]), r: Number(parts[2]), p: Number(parts[3]) };
  try {
    checkScryptCost(cost);
  } catch {
    return null;
  }
  return { cost, salt: Buffer.from(parts[4], "base64url"), key: Buffer.from(parts[5], "base64url") };
}

/** Runs at most `concurrent` tasks at once, lets `queued` wait, and refuses the rest at once. */
function createTurns(concurrent: number, queued: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const available = () => running < concurrent || waiting.length < queued;
  return { available, inTurn };
  async function inTurn<T>(task: () => Promise<T>): Promise<T> {
    if (running < concurrent) running++;
    else if (waiting.length < queued) await new Promise<void>((resolve) => waiting.push(resolve));
    else throw new UnavailableError(PASSWORDS_BUSY, 1);
    try {
      return await task();
    } finally {
      // The turn passes straight to the next one waiting, or is given back.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  }
}

export function createPasswords(options: PasswordOptions = {}): Passwords {
  const cost = checkScryptCost(options.cost ?? DEFAULT_SCRYPT_COST);
  const concurrent = options.concurrent ?? Math.max(1, Math.floor(availableParallelism() / 2));
  const queued = options.queued ?? 4 * concurrent;
  if (!Number.isInteger(concurrent) || concurrent < 1)
    throw new TypeError(`passwords.concurrent must be a whole number ≥ 1, got ${concurrent}`);
  if (!Number.isInteger(queued) || queued < 0) throw new TypeError(`passwords.queued must be a whole number ≥ 0, got ${queued}`);
  const { inTurn, available } = createTurns(concurrent, queued);
  let decoy: Promise<string> | null = null;

  async function hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH);
    const key = await inTurn(() => derive(password, salt, cost));
    return ["scrypt", cost.logN, cost.r, cost.p, salt.toString("base64url"), key.toString("base64url")].join("$");
  }

  return {
    hash,
    available,
    async verify(password, stored) {
      const parsed = parseHash(stored);
      if (!parsed) {
        decoy ??= hash(randomBytes(16).toString("hex")).catch((error: unknown) => {
          decoy = null;
          throw error;
        });
        const made = await decoy;
        await inTurn(() => derive(password, parseHash(made)!.salt, cost));
        return false;
      }
      const actual = await inTurn(() => derive(password, parsed.salt, parsed.cost));
      return actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
    },
  };
}
