// Shared by the e-mail report tests: a Tally with real SMTP delivery, served by node:http
// under /analytics at the public URL its e-mails link to.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createTally, type Tally, type TallyOptions } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";
import { apiClient, type ApiClient } from "../support/api-client.js";
import { createTestDatabase, runSql, type DialectName, type TestDatabase } from "../support/databases.js";
import { startSmtp, type TestSmtp } from "../support/smtp.js";
import type { Served } from "../support/transports.js";

export const MAIL_FROM = "Tally Reports <reports@tally.test>";
const DAY_MS = 86_400_000;

/** A Monday, 18:00 UTC: 6:00 or later everywhere from UTC−12 to UTC+14, so last week's report is due. */
export const SEND_TIME = Date.UTC(2026, 10, 16, 18);
export const LAST_WEEK = { from: "2026-11-09", to: "2026-11-15" };
export const WEEK_MS = 7 * DAY_MS;

export interface ReportsFixture {
  smtp: TestSmtp;
  database: TestDatabase;
  /** The first instance, served over HTTP. */
  tally: Tally;
  served: Served;
  /** Another Tally on the same database (a second instance, or the same one after a restart). */
  open(options?: Omit<TallyOptions, "database">): Tally;
  /** Runs one statement on a connection of its own (what another process would see or do); answers its rows. */
  sql<Row = Record<string, unknown>>(text: string): Promise<Row[]>;
  /** An account with a key, an address and a first website with reports on. */
  account(
    name: string,
    options?: { email?: string; period?: "week" | "month"; timezone?: string },
  ): Promise<{ id: number; key: string; api: ApiClient; websiteId: number; domain: string }>;
  dispose(): Promise<void>;
}

export async function reportsFixture(dialect: DialectName, options: Omit<TallyOptions, "database"> = {}): Promise<ReportsFixture> {
  const smtp = await startSmtp();
  const database = await createTestDatabase(dialect);
  let handler: ReturnType<typeof toNodeHandler> | null = null;
  const server: Server = createServer((req, res) => handler?.(req, res));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/analytics`;
  const opened: Tally[] = [];
  const open = (extra: Omit<TallyOptions, "database"> = {}) => {
    const tally = createTally({
      mail: { url: smtp.url, from: MAIL_FROM },
      publicUrl: base,
      reportIntervalMs: 0,
      ...options,
      ...extra,
      database: database.url,
    });
    opened.push(tally);
    return tally;
  };
  const tally = open();
  await tally.ready();
  handler = toNodeHandler(tally, { basePath: "/analytics" });
  const served: Served = { base, fetch: (path, init) => fetch(`${base}${path}`, init), close: async () => {} };
  return {
    smtp,
    database,
    tally,
    served,
    open,
    sql: <Row>(text: string) => runSql<Row>(dialect, database.url, text, { write: true }),
    async account(name, settings = {}) {
      const { accountId, key } = await tally.accounts.create({ name });
      const domain = `${name}.example`;
      const site = await tally.websites.create(accountId, { domain, email: 1, timezone: settings.timezone ?? "UTC" });
      await tally.accounts.update(accountId, { email: settings.email ?? `${name}@mail.test`, report_period: settings.period ?? "week" });
      return { id: accountId, key, api: apiClient(served, key), websiteId: site.id, domain };
    },
    async dispose() {
      server.closeAllConnections();
      server.close();
      for (const instance of opened) await instance.close();
      await smtp.close();
      await database.dispose();
    },
  };
}
