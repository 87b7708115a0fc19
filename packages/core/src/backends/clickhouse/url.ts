/** Where ClickHouse is: a server (or ClickHouse Cloud) over HTTP(S), or chDB embedded in this process with its data in a folder. */
export type ClickhouseLocation = { kind: "server"; url: string } | { kind: "embedded"; path: string };

/** The forms Tally understands, for error messages. */
export const CLICKHOUSE_URL_FORMS = "http(s)://user:password@host:8123/database, or chdb:PATH for ClickHouse embedded through chDB";

/** Reads a ClickHouse URL: `http://…`, `https://…`, or `chdb:PATH` (`chdb:./data/events`). Anything else is a TypeError. */
export function parseClickhouseUrl(url: string): ClickhouseLocation {
  if (/^https?:\/\/[^/]/i.test(url)) {
    if (!URL.canParse(url)) throw new TypeError(`not a URL: the ClickHouse URL must be ${CLICKHOUSE_URL_FORMS}`);
    return { kind: "server", url };
  }
  const embedded = /^chdb:(.*)$/i.exec(url);
  if (embedded) {
    const path = embedded[1]!.replace(/^\/\/(?=\/)/, "");
    if (path.trim() === "") throw new TypeError(`no folder in the ClickHouse URL "${url}" (${CLICKHOUSE_URL_FORMS})`);
    return { kind: "embedded", path };
  }
  throw new TypeError(`unsupported ClickHouse URL (${CLICKHOUSE_URL_FORMS})`);
}
