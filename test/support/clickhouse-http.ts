/**
 * ClickHouse's HTTP interface in front of chDB in this process: `tally serve` processes
 * reach it as a ClickHouse server (`CLICKHOUSE_URL=http://…`), so several of them can write
 * to one ClickHouse, and stopping the listener makes it unreachable (connections refused
 * or cut) while its data stays. Requests run one at a time, each in its URL's database.
 * The interface as `@clickhouse/client` uses it: `/ping`; a statement in the body; an
 * insert's statement in `query` with its rows in the body; settings and `param_*` in the URL.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Readable } from "node:stream";

interface ChdbConnection {
  exec(params: {
    query: string;
    clickhouse_settings?: Record<string, unknown>;
    query_params?: Record<string, unknown>;
  }): Promise<{ stream: Readable }>;
  close(): Promise<void>;
}

export interface ClickhouseOverHttp {
  /** `http://127.0.0.1:PORT/database` (the database is made if it does not exist). */
  url(database?: string): Promise<string>;
  /** Rows of a query straight on chDB (in `database`), for the test to count what arrived. */
  rows<T>(sql: string, database?: string): Promise<T[]>;
  /** Stops listening and cuts the open connections: ClickHouse is unreachable until `start`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Settings of the HTTP layer only (and the client's bookkeeping): not for the engine. */
const NOT_SETTINGS = new Set(["query", "query_id", "database", "session_id", "role", "enable_http_compression"]);

const bodyOf = async (request: IncomingMessage): Promise<string> => {
  let text = "";
  for await (const chunk of request) text += String(chunk);
  return text;
};

const quotedName = (name: string) => `\`${name.replace(/[\\`]/g, "")}\``;

export async function serveChdbOverHttp(path: string): Promise<ClickhouseOverHttp> {
  const { createChdbConnection } = (await import("chdb/connection" as string)) as {
    createChdbConnection(options: { path: string }): ChdbConnection;
  };
  const connection = createChdbConnection({ path });
  let current = "default";
  let turn: Promise<unknown> = Promise.resolve();
  /** One statement at a time: `USE` holds for the session until the next one. */
  function run(database: string, query: string, settings: Record<string, string> = {}, params: Record<string, string> = {}) {
    const result = turn.then(async () => {
      if (database !== current) {
        await connection.exec({ query: `USE ${quotedName(database)}` });
        current = database;
      }
      const { stream } = await connection.exec({ query, clickhouse_settings: settings, query_params: params });
      let text = "";
      for await (const chunk of stream) text += String(chunk);
      return text;
    });
    turn = result.catch(() => {});
    return result;
  }

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://clickhouse");
    const body = await bodyOf(request);
    if (url.pathname === "/ping") {
      response.end("Ok.\n");
      return;
    }
    const settings: Record<string, string> = {};
    const params: Record<string, string> = {};
    for (const [name, value] of url.searchParams) {
      if (name.startsWith("param_")) params[name.slice("param_".length)] = value;
      else if (!NOT_SETTINGS.has(name)) settings[name] = value;
    }
    const insert = url.searchParams.get("query");
    const query = insert === null ? body : `${insert}\n${body}`;
    try {
      const text = await run(url.searchParams.get("database") ?? "default", query, settings, params);
      response.writeHead(200, { "content-type": "text/plain; charset=UTF-8" });
      response.end(text);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const code = (error as { code?: unknown }).code;
      response.writeHead(500, { "x-clickhouse-exception-code": String(code ?? 1000) });
      response.end(/^Code: /.test(message) ? message : `Code: ${String(code ?? 1000)}. DB::Exception: ${message}`);
    }
  }

  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => response.destroy(error as Error));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  let listening = true;

  return {
    async url(database = "default") {
      await run("default", `CREATE DATABASE IF NOT EXISTS ${quotedName(database)}`);
      return `http://default@127.0.0.1:${port}/${database}`;
    },
    async rows<T>(sql: string, database = "default") {
      const text = await run(database, `${sql} FORMAT JSONEachRow`);
      return text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as T);
    },
    async stop() {
      if (!listening) return;
      listening = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    async start() {
      if (listening) return;
      await listen(port);
      listening = true;
    },
    async close() {
      await this.stop();
      await connection.close();
    },
  };
}
