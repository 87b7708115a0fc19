import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";

/** What an unsubscribe link stops: reports of these websites of this account. */
export interface UnsubscribeTarget {
  accountId: number;
  websiteIds: number[];
}

const SECRET_NAME = "unsubscribe";
/** More websites than one report would ever list: bounds what a forged token makes us parse. */
const MAX_WEBSITES = 500;
const TOKEN = /^(\d{1,15})\.(\d{1,15}(?:-\d{1,15})*)\.([A-Za-z0-9_-]{43})$/;

/**
 * The HMAC key, created once per database (the first process to insert it wins; every
 * other one reads that row), so links keep working across restarts and on every instance.
 */
export async function loadUnsubscribeSecret(db: Kysely<Database>): Promise<Buffer> {
  await db
    .insertInto("report_secrets")
    .values({ name: SECRET_NAME, value: randomBytes(32).toString("base64url") })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
  const row = await db.selectFrom("report_secrets").select("value").where("name", "=", SECRET_NAME).executeTakeFirstOrThrow();
  return Buffer.from(row.value, "base64url");
}

const payloadOf = ({ accountId, websiteIds }: UnsubscribeTarget) => `${accountId}.${websiteIds.join("-")}`;
const mac = (secret: Buffer, payload: string) => createHmac("sha256", secret).update(`tally-unsubscribe\n${payload}`).digest("base64url");

/** `account.site-site.mac`: readable ids (they are no secret to the recipient), a SHA-256 HMAC over them. */
export function signUnsubscribe(secret: Buffer, target: UnsubscribeTarget): string {
  const payload = payloadOf(target);
  return `${payload}.${mac(secret, payload)}`;
}

/** The target of a genuine token; null for anything else (malformed, altered, signed with another key). */
export function verifyUnsubscribe(secret: Buffer, token: string): UnsubscribeTarget | null {
  const match = TOKEN.exec(token);
  if (!match) return null;
  const websiteIds = match[2]!.split("-").map(Number);
  if (websiteIds.length > MAX_WEBSITES) return null;
  // Compared as text: decoding would ignore the last character's spare bits, so two spellings could pass.
  const given = Buffer.from(match[3]!);
  const expected = Buffer.from(mac(secret, `${match[1]}.${match[2]}`));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { accountId: Number(match[1]), websiteIds };
}
