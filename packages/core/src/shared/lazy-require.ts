import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * The packages an app installs beside Tally only for what it uses (peer dependencies, as
 * kysely and Drizzle leave the driver to the app), and what each is for.
 */
const OPTIONAL_PACKAGES: Readonly<Record<string, string>> = {
  "better-sqlite3": "SQLite databases",
  pg: "PostgreSQL databases",
  nodemailer: "sending e-mail (reports, alerts, invitations)",
  maxmind: "GeoIP databases (the geoip option)",
  otpauth: "two-factor sign-in",
  "csv-parse": "importing CSV files",
  yauzl: "importing ZIP files",
};

/** An optional package the app has not installed; the message names the command that fixes it. */
export class MissingDependencyError extends Error {
  override name = "MissingDependencyError";
  constructor(readonly packageName: string) {
    super(
      `Tally needs the package "${packageName}" for ${OPTIONAL_PACKAGES[packageName] ?? "this feature"}: install it in your app (npm install ${packageName}).`,
    );
  }
}

function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") return false;
  return typeof message === "string" && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}

function explained(error: unknown, name: string): unknown {
  return isMissing(error, name) ? new MissingDependencyError(name) : error;
}

/** `await optionalImport("pg", () => import("pg"))`: the import, or one error naming the package to install. */
export async function optionalImport<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw explained(error, name);
  }
}

/**
 * A dependency loaded on its first use, from its CommonJS build (a synchronous caller can
 * wait for it): an embedded Tally that never matches a pattern, checks a two-factor code or
 * names a country does not hold their code and tables in its host's memory. An optional
 * package the app has not installed is one `MissingDependencyError`.
 */
export function lazyRequire<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    try {
      return (loaded ??= require(name) as T);
    } catch (error) {
      throw explained(error, name);
    }
  };
}
