import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import type { Passwords } from "../shared/passwords.js";
import type { Website } from "./website-schema.js";
import { findByAlias, type WebsiteRow } from "./website-directory.js";
import { parseWebsiteInput, RETENTION_DAYS, type WebsiteInput } from "./website-input.js";

export type { Website } from "./website-schema.js";
export type { WebsiteDirectory, WebsiteRow } from "./website-directory.js";

export interface ListWebsitesOptions {
  /** Case-insensitive substring of the domain. */
  search?: string;
  /** @default "id" */
  sortBy?: "id" | "domain";
  /** @default "desc" */
  sort?: "asc" | "desc";
  /** @default 10 */
  perPage?: number;
  /** @default 1 */
  page?: number;
  /** Only these websites (a user limited to some of the account's). */
  ids?: readonly number[];
}

export interface Page<T> {
  data: T[];
  total: number;
  page: number;
  perPage: number;
}

export interface Websites {
  create(accountId: number, input: WebsiteInput): Promise<Website>;
  get(accountId: number, id: number): Promise<Website>;
  list(accountId: number, options?: ListWebsitesOptions): Promise<Page<Website>>;
  update(accountId: number, id: number, input: WebsiteInput): Promise<Website>;
  delete(accountId: number, id: number): Promise<void>;
}

export interface WebsiteHooks {
  /** Called after a website's row was created, changed or deleted, so caches can drop what they knew. */
  onChange?(row: WebsiteRow, change: "create" | "update" | "delete"): void | Promise<void>;
}

export function toWebsite(row: WebsiteRow): Website {
  return {
    id: Number(row.id),
    domain: row.domain,
    // Stored values were checked on the way in (websiteCreateSchema / websiteUpdateSchema).
    privacy: Number(row.privacy) as Website["privacy"],
    password: row.password_hash !== null,
    email: Number(row.email) as Website["email"],
    exclude_bots: Number(row.exclude_bots) as Website["exclude_bots"],
    exclude_params: row.exclude_params,
    exclude_ips: row.exclude_ips,
    timezone: row.timezone,
    retention_days: Number(row.retention_days),
    page_names: row.page_names as Website["page_names"],
    aliases: row.aliases,
    include_subdomains: Number(row.include_subdomains) as Website["include_subdomains"],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const PASSWORD_REQUIRED = "The password field is required when privacy is 2.";

export function createWebsites(db: Kysely<Database>, passwords: Passwords, hooks: WebsiteHooks = {}): Websites {
  async function findOwned(accountId: number, id: number): Promise<WebsiteRow> {
    if (!Number.isSafeInteger(id) || id < 1) throw new NotFoundError();
    const row = await db.selectFrom("websites").selectAll().where("id", "=", id).where("account_id", "=", accountId).executeTakeFirst();
    if (!row) throw new NotFoundError();
    return row;
  }

  async function assertDomainFree(domain: string): Promise<void> {
    const taken =
      (await db.selectFrom("websites").select("id").where("domain", "=", domain).executeTakeFirst()) ?? (await findByAlias(db, domain));
    if (taken) throw ValidationError.field("domain", "The domain has already been taken.");
  }

  /** Aliases route hits: none may be another website's alias, nor any website's domain. */
  async function assertAliasesFree(aliases: string, websiteId: number | null): Promise<void> {
    for (const alias of aliases === "" ? [] : aliases.split("\n")) {
      const owner =
        (await db.selectFrom("websites").select("id").where("domain", "=", alias).executeTakeFirst()) ?? (await findByAlias(db, alias));
      if (owner && Number(owner.id) !== websiteId) throw ValidationError.field("aliases", `The alias "${alias}" has already been taken.`);
    }
  }

  return {
    async create(accountId, input) {
      const fields = parseWebsiteInput(input, "create");
      const privacy = fields.privacy ?? 1;
      if (privacy === 2 && fields.password === undefined) throw ValidationError.field("password", PASSWORD_REQUIRED);
      const domain = fields.domain as string;
      await assertDomainFree(domain);
      await assertAliasesFree(fields.aliases ?? "", null);
      const now = new Date().toISOString();
      const values = {
        account_id: accountId,
        domain,
        privacy,
        password_hash: privacy === 2 && fields.password ? await passwords.hash(fields.password) : null,
        email: fields.email ?? 0,
        exclude_bots: fields.exclude_bots ?? 1,
        exclude_params: fields.exclude_params ?? "",
        exclude_ips: fields.exclude_ips ?? "",
        timezone: fields.timezone ?? "UTC",
        retention_days: fields.retention_days ?? RETENTION_DAYS.default,
        page_names: fields.page_names ?? "path",
        aliases: fields.aliases ?? "",
        include_subdomains: fields.include_subdomains ?? 0,
        created_at: now,
        updated_at: now,
      };
      try {
        const row = await db.insertInto("websites").values(values).returningAll().executeTakeFirstOrThrow();
        await hooks.onChange?.(row, "create");
        return toWebsite(row);
      } catch (error) {
        // Two creates of one domain racing: the unique index decides, the loser gets the same 422.
        await assertDomainFree(domain);
        throw error;
      }
    },

    async get(accountId, id) {
      return toWebsite(await findOwned(accountId, id));
    },

    async list(accountId, options = {}) {
      const perPage = options.perPage ?? 10;
      const page = options.page ?? 1;
      let query = db.selectFrom("websites").where("account_id", "=", accountId);
      if (options.ids) query = options.ids.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where("id", "in", options.ids);
      if (options.search) {
        const pattern = `%${options.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where(sql<boolean>`lower(domain) like ${pattern} escape '\\'`);
      }
      const countRow = await query.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
      const direction = options.sort ?? "desc";
      const rows = await query
        .selectAll()
        .orderBy(options.sortBy ?? "id", direction)
        .orderBy("id", direction)
        .limit(perPage)
        .offset((page - 1) * perPage)
        .execute();
      return { data: rows.map(toWebsite), total: Number(countRow.n), page, perPage };
    },

    async update(accountId, id, input) {
      const row = await findOwned(accountId, id);
      const fields = parseWebsiteInput(input, "update");
      const privacy = fields.privacy ?? Number(row.privacy);
      let passwordHash = row.password_hash;
      if (privacy !== 2) passwordHash = null;
      else if (fields.password !== undefined) passwordHash = await passwords.hash(fields.password);
      else if (passwordHash === null) throw ValidationError.field("password", PASSWORD_REQUIRED);
      if (fields.aliases !== undefined) await assertAliasesFree(fields.aliases, Number(row.id));
      const updated = await db
        .updateTable("websites")
        .set({
          privacy,
          password_hash: passwordHash,
          email: fields.email ?? Number(row.email),
          exclude_bots: fields.exclude_bots ?? Number(row.exclude_bots),
          exclude_params: fields.exclude_params ?? row.exclude_params,
          exclude_ips: fields.exclude_ips ?? row.exclude_ips,
          timezone: fields.timezone ?? row.timezone,
          retention_days: fields.retention_days ?? Number(row.retention_days),
          page_names: fields.page_names ?? row.page_names,
          aliases: fields.aliases ?? row.aliases,
          include_subdomains: fields.include_subdomains ?? Number(row.include_subdomains),
          updated_at: new Date().toISOString(),
        })
        .where("id", "=", row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await hooks.onChange?.(updated, "update");
      return toWebsite(updated);
    },

    async delete(accountId, id) {
      const row = await findOwned(accountId, id);
      await db.deleteFrom("websites").where("id", "=", row.id).execute();
      await hooks.onChange?.(row, "delete");
    },
  };
}
