/** Where a database URL points: a SQLite file (or memory) or a PostgreSQL server. */
export type DatabaseLocation = { dialect: "sqlite"; path: string } | { dialect: "postgres"; url: string };

/** The forms Tally understands, for error messages. */
export const DATABASE_URL_FORMS = "SQLite: file:PATH or :memory:, PostgreSQL: postgres://user@host/db";

/**
 * Reads a database URL: `file:PATH`, `file://PATH`, a plain path (SQLite), `:memory:`,
 * `postgres://…` or `postgresql://…`. Any other scheme (`mysql://…`) is refused with a
 * TypeError rather than taken for a file name.
 */
export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (/^postgres(ql)?:\/\//i.test(url)) return { dialect: "postgres", url };
  if (url === ":memory:" || url === "file::memory:") return { dialect: "sqlite", path: ":memory:" };
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1];
  // A one-letter "scheme" is a Windows drive (C:\data\tally.sqlite).
  if (scheme !== undefined && scheme.length > 1 && scheme.toLowerCase() !== "file") {
    throw new TypeError(`unsupported database URL scheme "${scheme}:" (${DATABASE_URL_FORMS})`);
  }
  const path = url.replace(/^file:(\/\/)?/i, "");
  if (path.trim() === "") throw new TypeError(`no file path in the database URL "${url}" (${DATABASE_URL_FORMS})`);
  return { dialect: "sqlite", path };
}

/** Names of parameters whose values are secrets (`password`, `sslpassword`, `pass%77ord`…), once decoded. */
const SECRET_NAME = /pass|pwd|secret|token|key/i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A connection URL's user info (`user:password`) as it may be printed: the password, whatever
 * it holds (a raw `@`, `/` or `?`, percent escapes), becomes `***`. It ends at the last `@`
 * before the query, or, when there is none (a raw `?` in the password), the last `@` of all:
 * masking too much is harmless, printing a secret is not.
 */
function maskUserInfo(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url);
  if (!scheme) return url;
  const rest = url.slice(scheme[0].length);
  const beforeQuery = rest.split("?", 1)[0]!;
  const end = beforeQuery.includes("@") ? beforeQuery.lastIndexOf("@") : rest.lastIndexOf("@");
  if (end < 0) return url;
  const colon = rest.indexOf(":");
  if (colon < 0 || colon > end) return url;
  return `${scheme[0]}${rest.slice(0, colon)}:***${rest.slice(end)}`;
}

/**
 * The URL (or `key=value` connection string) as it may be printed: its password, and the
 * value of every parameter named like a secret (`?password=`, `sslpassword=`, `…key=`), are `***`.
 */
export function redactDatabaseUrl(url: string): string {
  return maskUserInfo(url).replace(
    /(^|[?&;\s])([^=&;?\s]+)(\s*=\s*)('[^']*'|[^&;\s]*)/g,
    (whole, before: string, name: string, equals: string) => (SECRET_NAME.test(decoded(name)) ? `${before}${name}${equals}***` : whole),
  );
}
