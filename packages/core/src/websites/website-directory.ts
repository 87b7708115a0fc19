import { isIP } from "node:net";
import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, WebsitesTable } from "../storage/schema.js";
import type { Passwords } from "../shared/passwords.js";

export type WebsiteRow = Selectable<WebsitesTable>;

/**
 * Lookups across every account, for Tally's own routing (collect, share pages, retention,
 * the CLI): never on the public `tally.websites`, since its rows hold password hashes.
 */
export interface WebsiteDirectory {
  /** The stored row for a host, or for one of its aliases; null when no website has it. */
  findByDomain(domain: string): Promise<WebsiteRow | null>;
  /** Collect routing: `findByDomain`, else the website of the nearest parent domain that counts its subdomains. */
  findForHost(host: string): Promise<WebsiteRow | null>;
  /** The stored row by id regardless of account. */
  findById(id: number): Promise<WebsiteRow | null>;
  /** Every website's row, of every account (retention). */
  listRows(): Promise<WebsiteRow[]>;
  /** Whether a password-protected website's share password is this one. */
  checkPassword(id: number, password: string): Promise<boolean>;
}

/** The website one of whose aliases this is (aliases are kept one a line). */
export async function findByAlias(db: Kysely<Database>, alias: string): Promise<WebsiteRow | undefined> {
  const pattern = `%\n${alias.replace(/[\\%_]/g, (c) => `\\${c}`)}\n%`;
  return db
    .selectFrom("websites")
    .selectAll()
    .where(sql<boolean>`${"\n"} || aliases || ${"\n"} like ${pattern} escape '\\'`)
    .executeTakeFirst();
}

/** `a.blog.example.com` → `blog.example.com`, `example.com` (not the top-level label); none for an IP address. */
function parentDomains(host: string): string[] {
  if (isIP(host.replace(/^\[|\]$/g, "")) !== 0) return [];
  const labels = host.split(".");
  return labels.slice(1, -1).map((_, i) => labels.slice(i + 1).join("."));
}

/** The website of the nearest parent domain of `host` that counts its subdomains (`include_subdomains`). */
async function findByParentDomain(db: Kysely<Database>, host: string): Promise<WebsiteRow | undefined> {
  const parents = parentDomains(host);
  if (parents.length === 0) return undefined;
  const rows = await db.selectFrom("websites").selectAll().where("domain", "in", parents).where("include_subdomains", "=", 1).execute();
  return rows.sort((a, b) => b.domain.length - a.domain.length)[0];
}

export function createWebsiteDirectory(db: Kysely<Database>, passwords: Passwords): WebsiteDirectory {
  async function findByDomain(domain: string): Promise<WebsiteRow | null> {
    return (
      (await db.selectFrom("websites").selectAll().where("domain", "=", domain).executeTakeFirst()) ??
      (await findByAlias(db, domain)) ??
      null
    );
  }

  return {
    findByDomain,

    async findForHost(host) {
      return (await findByDomain(host)) ?? (await findByParentDomain(db, host)) ?? null;
    },

    async findById(id) {
      return (await db.selectFrom("websites").selectAll().where("id", "=", id).executeTakeFirst()) ?? null;
    },

    async listRows() {
      return db.selectFrom("websites").selectAll().orderBy("id").execute();
    },

    async checkPassword(id, password) {
      const row = await db.selectFrom("websites").select("password_hash").where("id", "=", id).executeTakeFirst();
      return Boolean(row?.password_hash) && (await passwords.verify(password, row?.password_hash ?? null));
    },
  };
}
