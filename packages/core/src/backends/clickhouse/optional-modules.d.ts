/*
 * The optional packages as far as Tally uses them: they are installed only by apps that ask
 * for ClickHouse, so Tally builds without them.
 */
declare module "@clickhouse/client" {
  export function createClient(config: { url?: string; connection?: unknown }): unknown;
}
declare module "chdb/connection" {
  export function createChdbConnection(options: { path: string }): unknown;
}
