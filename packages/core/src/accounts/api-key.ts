import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

const KEY_PREFIX = "tly_";
/** Characters of a key shown in listings and accepted by `keys revoke`. */
export const VISIBLE_PREFIX_LENGTH = KEY_PREFIX.length + 8;

/** A new random API key: 32 random bytes, base64url, recognisable by its `tly_` prefix. */
export function generateApiKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** Compares two hex digests without leaking where they differ. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
