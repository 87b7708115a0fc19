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

/** The URL as it may be printed: a PostgreSQL password is replaced by `***`. */
export function redactDatabaseUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}
