import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createTally, type Tally } from "@tally/core";
import { toNodeHandler } from "@tally/server/node";
import type { ServeConfig } from "../config.js";

type Print = (line: string) => void;

/** With no key configured and no account yet, the first start creates one and prints its key once. */
async function ensureAccount(tally: Tally, config: ServeConfig, print: Print): Promise<void> {
  if (config.apiKey) {
    await tally.accounts.ensureKey(config.apiKey);
    return;
  }
  if ((await tally.accounts.count()) > 0) return;
  const created = await tally.accounts.create({ name: "default" });
  print(`Created account ${created.accountId}. Its API key, shown only this once:`);
  print(created.key);
}

/** `tally serve`: the standalone server. Resolves once it has stopped cleanly. */
export async function serve(config: ServeConfig, print: Print = console.log): Promise<void> {
  const tally = createTally(config.tally);
  await tally.ready();
  await ensureAccount(tally, config, print);

  const server = createServer(toNodeHandler(tally, config.handler));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  print(`Tally is listening on http://${shownHost}:${port} (database ${String(config.tally.database)})`);

  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      print(`${signal}: finishing requests, writing buffered hits, closing.`);
      process.off("SIGTERM", onTerm).off("SIGINT", onInt);
      server.close(() => resolve());
      server.closeIdleConnections();
      // Requests still running after a grace period are cut so the process can exit.
      setTimeout(() => server.closeAllConnections(), 5000).unref();
    };
    const onTerm = () => stop("SIGTERM");
    const onInt = () => stop("SIGINT");
    process.on("SIGTERM", onTerm).on("SIGINT", onInt);
  });
  await tally.close();
}
