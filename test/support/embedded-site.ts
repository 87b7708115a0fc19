// An embedded Tally behind a node:http server on port 0, for the tracker's browser tests:
// its own SQLite file in a temporary directory, an account and a website for 127.0.0.1
// (exclude_bots 0: headless Chromium is a bot to isbot), Tally mounted under /analytics.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTally, type Tally } from "@tally-analytics/core";
import { toNodeHandler } from "@tally-analytics/server/node";

export interface EmbeddedSite {
  tally: Tally;
  server: Server;
  directory: string;
  accountId: number;
  key: string;
  websiteId: number;
  /** The measured site: http://127.0.0.1:port. */
  origin: string;
  /** The same server under another host (another site): http://localhost:port. */
  other: string;
}

/** Tally's node:http handler, mounted under /analytics. */
export type TallyHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Starts the Tally and its server; `listener` is given Tally's handler and answers every
 * request (it decides what reaches Tally and serves the pages).
 */
export async function startEmbeddedSite(prefix: string, listener: (tally: TallyHandler) => RequestListener): Promise<EmbeddedSite> {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const tally = createTally({ database: `file:${join(directory, "tally.sqlite")}`, flushIntervalMs: 100 });
  const { accountId, key } = await tally.accounts.create();
  const website = await tally.websites.create(accountId, { domain: "127.0.0.1", exclude_bots: 0 });
  const server = createServer(listener(toNodeHandler(tally, { basePath: "/analytics" })));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    tally,
    server,
    directory,
    accountId,
    key,
    websiteId: website.id,
    origin: `http://127.0.0.1:${port}`,
    other: `http://localhost:${port}`,
  };
}

export async function stopEmbeddedSite(site: EmbeddedSite): Promise<void> {
  site.server.closeAllConnections();
  await new Promise((resolve) => site.server.close(resolve));
  await site.tally.close();
  rmSync(site.directory, { recursive: true, force: true });
}
