import { randomBytes } from "node:crypto";
import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, ShareLinksTable } from "../storage/schema.js";
import { hasControlCharacters } from "../shared/text.js";
import { validate } from "../shared/validation.js";
import { deleteRecord, requireRoom, timestamp } from "./website-records.js";
import type { Websites } from "./websites.js";

/** A share link as the API shows it: `token` makes its address, `{base}/share/{domain}?link={token}`. */
export const shareLinkSchema = z
  .object({
    id: z.int().positive().meta({ example: 1 }),
    website_id: z.int().positive().meta({ example: 1 }),
    name: z.string().meta({ example: "Investors" }),
    token: z.string().meta({
      description: "What the link's address carries (`?link=`): whoever has it sees the statistics.",
      example: "q2Yk1xWbJ8vQm4sZt0aPcR7n",
    }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "ShareLink" });
export type ShareLink = z.infer<typeof shareLinkSchema>;

export const SHARE_LINK_LIMITS = { nameLength: 100, perWebsite: 50 } as const;

export const shareLinkCreateSchema = z
  .object({
    name: z
      .string({ error: "The name field is required." })
      .trim()
      .min(1, "The name field is required.")
      .max(SHARE_LINK_LIMITS.nameLength, `The name may not be longer than ${SHARE_LINK_LIMITS.nameLength} characters.`)
      .refine((value) => !hasControlCharacters(value), "The name may not hold control characters.")
      .meta({ description: "Who it is for (yours to tell them apart).", example: "Investors" }),
  })
  .meta({ id: "ShareLinkCreate" });

export interface ShareLinks {
  list(accountId: number, websiteId: number): Promise<ShareLink[]>;
  create(accountId: number, websiteId: number, input: { name?: unknown }): Promise<ShareLink>;
  /** Deleting a link ends it: its address answers 404 from then on. */
  delete(accountId: number, websiteId: number, linkId: number): Promise<void>;
  /** Whether `token` is a link of the website (share pages decide access with it). */
  opens(websiteId: number, token: string): Promise<boolean>;
}

const toLink = (row: Selectable<ShareLinksTable>): ShareLink => ({
  id: Number(row.id),
  website_id: Number(row.website_id),
  name: row.name,
  token: row.token,
  created_at: row.created_at,
});

/** Several share links per website, each with its name, each revoked on its own (docs/dashboard.md, "Share pages"). */
export function createShareLinks(db: Kysely<Database>, websites: Websites): ShareLinks {
  return {
    async list(accountId, websiteId) {
      await websites.get(accountId, websiteId);
      return (await db.selectFrom("share_links").selectAll().where("website_id", "=", websiteId).orderBy("id").execute()).map(toLink);
    },
    async create(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      const { name } = validate(shareLinkCreateSchema, input);
      await requireRoom(db, { table: "share_links", websiteId, max: SHARE_LINK_LIMITS.perWebsite, field: "name", what: "share links" });
      const row = await db
        .insertInto("share_links")
        .values({ website_id: websiteId, name, token: randomBytes(18).toString("base64url"), created_at: timestamp() })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toLink(row);
    },
    async delete(accountId, websiteId, linkId) {
      await websites.get(accountId, websiteId);
      await deleteRecord(db, "share_links", websiteId, linkId);
    },
    async opens(websiteId, token) {
      if (!/^[\w-]{24}$/.test(token)) return false;
      const row = await db
        .selectFrom("share_links")
        .select("id")
        .where("website_id", "=", websiteId)
        .where("token", "=", token)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
