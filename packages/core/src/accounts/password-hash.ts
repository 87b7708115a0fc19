import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * scrypt with N = 2^15, r = 8, p = 3: one of OWASP's equivalent scrypt settings (the
 * Password Storage Cheat Sheet lists N=2^17/p=1 … N=2^13/p=10 as equal work). This one
 * needs 32 MiB per hash (128·N·r bytes) instead of 128 MiB, so a burst of sign-ins cannot
 * take a small server's memory, and its work (p = 3) stays at the recommended level.
 * Built into Node: no native module to compile. The parameters are stored with each hash,
 * so they can be raised later without invalidating existing passwords.
 */
const PARAMETERS = { logN: 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, { logN, r, p }: { logN: number; r: number; p: number }): Promise<Buffer> {
  const N = 2 ** logN;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$15$8$3$<salt>$<key>` (base64url): the parameters travel with the hash. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMETERS);
  return ["scrypt", PARAMETERS.logN, PARAMETERS.r, PARAMETERS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** A hash of nothing anyone knows: checked when there is no user, so "no such e-mail" takes as long as "wrong password". */
let decoy: Promise<string> | null = null;

/** True when `password` matches `stored`; a null or malformed hash is checked against a decoy (same cost) and never matches. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? "").split("$");
  const [kind, logN, r, p, salt, key] = parts;
  if (parts.length !== 6 || kind !== "scrypt" || salt === undefined || key === undefined) {
    decoy ??= hashPassword(randomBytes(16).toString("hex"));
    await verifyPassword(password, await decoy);
    return false;
  }
  const expected = Buffer.from(key, "base64url");
  const actual = await derive(password, Buffer.from(salt, "base64url"), { logN: Number(logN), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Length rule shared by every form that sets a password. */
export const PASSWORD_RULE = { min: 10, max: 128 } as const;
