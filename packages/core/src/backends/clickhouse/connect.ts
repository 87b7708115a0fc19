import { parseClickhouseUrl } from "./url.js";

/** The little of `@clickhouse/client`'s client that Tally uses. */
export interface ClickhouseClient {
  command(params: { query: string; clickhouse_settings?: Record<string, unknown> }): Promise<unknown>;
  insert(params: {
    table: string;
    values: readonly object[];
    format: "JSONEachRow";
    clickhouse_settings?: Record<string, unknown>;
  }): Promise<unknown>;
  query(params: { query: string; query_params?: Record<string, unknown>; format: "JSONEachRow" }): Promise<{ json<T>(): Promise<T[]> }>;
  close(): Promise<void>;
}

/** Neither package is a dependency that every app downloads: an app asking for ClickHouse installs them beside Tally. */
async function load<T>(name: string, why: string, importer: () => Promise<T>): Promise<T> {
  try {
    return await importer();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") throw error;
    throw new Error(`${why} needs the package ${name}, which is not installed: npm install ${name}`, { cause: error });
  }
}

/**
 * A client of the ClickHouse a URL names: a server through `@clickhouse/client`, or chDB in
 * this process (`chdb:PATH`) through the same client. Both packages are loaded here, on first
 * use, and nowhere else: an app without a ClickHouse URL loads neither.
 */
export async function connectClickhouse(url: string): Promise<ClickhouseClient> {
  const location = parseClickhouseUrl(url);
  const { createClient } = await load("@clickhouse/client", "A ClickHouse URL", () => import("@clickhouse/client"));
  if (location.kind === "server") return createClient({ url: location.url }) as unknown as ClickhouseClient;
  const { createChdbConnection } = await load("chdb", `The embedded ClickHouse (chdb:${location.path})`, () => import("chdb/connection"));
  return createClient({ connection: createChdbConnection({ path: location.path }) } as never) as unknown as ClickhouseClient;
}
