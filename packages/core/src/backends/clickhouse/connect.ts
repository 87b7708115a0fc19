import { parseClickhouseUrl } from "./url.js";

/** The little of `@clickhouse/client`'s client that Tally uses. */
export interface ClickhouseClient {
  command(params: { query: string; clickhouse_settings?: Record<string, unknown> }): Promise<unknown>;
  insert(params: {
    table: string;
    values: readonly object[];
    /** JSONEachRow: objects by column name; JSONCompactEachRow: arrays of the `columns`, in their order. */
    format: "JSONEachRow" | "JSONCompactEachRow";
    columns?: readonly string[];
    clickhouse_settings?: Record<string, unknown>;
  }): Promise<unknown>;
  query(params: {
    query: string;
    query_params?: Record<string, unknown>;
    format: "JSONEachRow";
    clickhouse_settings?: Record<string, unknown>;
  }): Promise<{ json<T>(): Promise<T[]> }>;
  close(): Promise<void>;
}

/** What Tally uses of the two optional packages (typed here: Tally builds without them installed). */
interface ClientModule {
  createClient(config: { url?: string; connection?: unknown }): unknown;
}
interface ChdbModule {
  createChdbConnection(options: { path: string }): unknown;
}

/** Neither package is a dependency that every app downloads: an app asking for ClickHouse installs them beside Tally. */
async function load<T>(name: string, why: string, specifier: string): Promise<T> {
  try {
    // A specifier in a variable: neither TypeScript nor the bundler looks for the package ahead of time.
    return (await import(specifier)) as T;
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
  const { createClient } = await load<ClientModule>("@clickhouse/client", "A ClickHouse URL", "@clickhouse/client");
  if (location.kind === "server") return createClient({ url: location.url }) as unknown as ClickhouseClient;
  const { createChdbConnection } = await load<ChdbModule>("chdb", `The embedded ClickHouse (chdb:${location.path})`, "chdb/connection");
  return createClient({ connection: createChdbConnection({ path: location.path }) } as never) as unknown as ClickhouseClient;
}
