import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";

/** Shortest server secret accepted: 32 characters of a random string carry well over 128 bits. */
export const SECRET_MIN_LENGTH = 32;
const SEALED = /^v1\.([\w-]{8})\.([\w-]{16})\.([\w-]+)$/;

/** Keys derived from the server secret (HKDF-SHA256), one per use, so no two uses share a key. */
export interface Keyring {
  /** AES-256-GCM under the current secret: `v1.<key id>.<iv>.<ciphertext and tag>`, base64url. */
  seal(plain: string): string;
  /**
   * What `seal` sealed, under any of the secrets; null for text that was never sealed (stored
   * before encryption). Throws when no secret of the ring sealed it, or it was altered.
   */
  open(text: string): string | null;
  /** A keyed digest (HMAC-SHA256, hex) of `text`: stored in place of what it stands for (a client address). */
  digest(text: string): string;
}

interface Key {
  id: string;
  seal: Buffer;
}

function derive(secret: string, use: string): Buffer {
  return Buffer.from(hkdfSync("sha256", secret, "tally", use, 32));
}

function keyOf(secret: string): Key {
  const seal = derive(secret, "two-factor secrets");
  return { id: createHmac("sha256", seal).update("key id").digest("base64url").slice(0, 8), seal };
}

/** Rejects a secret too short to protect anything. */
export function checkSecret(secret: string): string {
  if (typeof secret !== "string" || secret.length < SECRET_MIN_LENGTH)
    throw new TypeError(`The server secret must be at least ${SECRET_MIN_LENGTH} characters.`);
  return secret;
}

/** `secrets[0]` seals and digests; every one of them opens (the others are earlier secrets, kept to rotate). */
export function createKeyring(secrets: readonly string[]): Keyring {
  if (secrets.length === 0) throw new TypeError("A keyring needs at least one secret.");
  const keys = secrets.map((secret) => keyOf(checkSecret(secret)));
  const current = keys[0]!;
  const digestKey = derive(secrets[0]!, "digests");
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", current.seal, iv);
      const sealed = Buffer.concat([cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `v1.${current.id}.${iv.toString("base64url")}.${sealed.toString("base64url")}`;
    },
    open(text) {
      const match = SEALED.exec(text);
      if (!match) return null;
      const key = keys.find((candidate) => candidate.id === match[1]);
      if (!key) throw new Error("This value was encrypted with a server secret Tally no longer has (TALLY_SECRET changed?).");
      const sealed = Buffer.from(match[3]!, "base64url");
      const decipher = createDecipheriv("aes-256-gcm", key.seal, Buffer.from(match[2]!, "base64url"));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]).toString("utf8");
    },
    digest: (text) => createHmac("sha256", digestKey).update(text).digest("hex"),
  };
}
