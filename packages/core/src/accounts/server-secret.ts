import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import { checkSecret, createKeyring, type Keyring } from "../shared/keyring.js";
import type { Database } from "../storage/schema.js";

/** The server secret as configured: one, or a list whose first seals and whose others still open (to rotate). */
export type SecretOption = string | readonly string[];

/**
 * The keyring of the configured secret, else of the one made at first start and kept in the
 * database (every process on it finds the same one: the first to insert wins). Either way a
 * secret stored in the database also opens, so setting one later keeps earlier set-ups readable.
 */
export async function openKeyring(db: Kysely<Database>, configured: SecretOption | undefined): Promise<Keyring> {
  const given = configured === undefined ? [] : (typeof configured === "string" ? [configured] : [...configured]).map(checkSecret);
  let stored = await db.selectFrom("server_secrets").select("value").where("name", "=", "default").executeTakeFirst();
  if (!stored && given.length === 0) {
    await db
      .insertInto("server_secrets")
      .values({ name: "default", value: randomBytes(32).toString("base64url") })
      .onConflict((oc) => oc.column("name").doNothing())
      .execute();
    stored = await db.selectFrom("server_secrets").select("value").where("name", "=", "default").executeTakeFirstOrThrow();
  }
  return createKeyring([...given, ...(stored ? [stored.value] : [])]);
}

/** Encrypts the two-factor secrets stored before they were encrypted (an upgrade's first start). */
export async function sealStoredSecrets(db: Kysely<Database>, keyring: Keyring): Promise<void> {
  const rows = await db
    .selectFrom("users")
    .select(["id", "totp_secret", "totp_pending"])
    .where((eb) => eb.or([eb("totp_secret", "is not", null), eb("totp_pending", "is not", null)]))
    .execute();
  for (const row of rows) {
    const plain = (value: string | null) => value !== null && !value.startsWith("v1.");
    if (!plain(row.totp_secret) && !plain(row.totp_pending)) continue;
    const seal = (value: string | null) => (value === null || !plain(value) ? value : keyring.seal(value));
    await db
      .updateTable("users")
      .set({ totp_secret: seal(row.totp_secret), totp_pending: seal(row.totp_pending) })
      .where("id", "=", row.id)
      .execute();
  }
}
