import { statSync } from "node:fs";
import { isIP } from "node:net";
import {
  parseClickhouseUrl,
  parseDatabaseUrl,
  ZOD_NEVER,
  zodObject,
  zodString,
  type TallyOptions,
  type TrustProxy,
  type ZodInfer,
  type ZodType,
} from "@tally-analytics/core/internal";
import type { HandlerOptions } from "@tally-analytics/server";
import { ConfigError, type Env } from "./command.js";

/** What the schemas below use of zod: the parts core's bundle exports (one module to load, not zod's 95). */
const z = { object: zodObject, string: zodString, NEVER: ZOD_NEVER };

/** Single sign-on as configured; the newcomers' account is resolved at start (the only one, unless OIDC_ACCOUNT says). */
export interface SsoConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  defaultRole: "owner" | "admin" | "viewer" | undefined;
  account: number | undefined;
}

export interface ServeConfig {
  port: number;
  host: string;
  apiKey: string | undefined;
  sso: SsoConfig | undefined;
  tally: TallyOptions;
  handler: HandlerOptions;
}

export const DEFAULT_DATABASE_URL = "file:./data/tally.sqlite";

/** What `tally serve --help` says about each variable it reads. */
export const SERVE_ENVIRONMENT: Readonly<Record<string, string>> = {
  PORT: "port to listen on (default 3000; 0 picks a free one)",
  HOST: "address to bind (default 127.0.0.1; 0.0.0.0 for every interface)",
  DATABASE_URL: `file:PATH or :memory: (SQLite), or postgres://user@host/db (default ${DEFAULT_DATABASE_URL})`,
  CLICKHOUSE_URL:
    "ClickHouse for the events, instead of the database: http(s)://user:password@host:8123/database, or chdb:PATH embedded (docs/clickhouse.md)",
  CLICKHOUSE_CLUSTER: "a cluster of the ClickHouse servers: the tables made on every node, replicated, a Distributed table in front",
  TALLY_API_KEY: "an account with exactly this key (16+ characters) exists after start",
  TALLY_SECRET:
    "the server secret (32+ characters) two-factor secrets are encrypted with; several, space-separated, to rotate (the first encrypts) (default: one made at first start, kept in the database)",
  TRUST_PROXY: "true, a hop count, or comma-separated IPs/CIDRs of your proxies (default false)",
  GEOIP_DB: "path of a MaxMind-format .mmdb (several: comma-separated)",
  RATE_LIMIT: "API requests per key per minute (default 600; 0 turns it off)",
  FLUSH_INTERVAL_MS: "how often buffered hits are written (default 1000)",
  CLOSE_TIMEOUT_MS: "how long a stop keeps retrying hits the database refuses before it keeps them in a file (default 30000)",
  TALLY_SPILL_DIR:
    "where hits that could not be written at a stop are kept, and read back at the next start (default: tally-spill beside the SQLite file, else the OS temp folder's)",
  SMTP_URL: "smtp:// or smtps:// server for e-mail reports (with MAIL_FROM)",
  MAIL_FROM: 'From address of the reports ("Tally <tally@example.com>")',
  PUBLIC_URL: "where Tally is reached from outside, for links in the reports, alerts, invitations and password resets (resets need it)",
  ALERT_INTERVAL_MS: "how often alert rules are checked and their deliveries sent (default 60000; 0 turns alerts off)",
  ALERT_RETRY_MS: "wait before a failed alert delivery is tried again, doubling each time, at most an hour (default 60000)",
  OIDC_ISSUER: "single sign-on: the OpenID Connect provider's issuer URL (with OIDC_CLIENT_ID and OIDC_CLIENT_SECRET)",
  OIDC_CLIENT_ID: "single sign-on: Tally's client id at the provider",
  OIDC_CLIENT_SECRET: "single sign-on: Tally's client secret at the provider",
  OIDC_DEFAULT_ROLE: "single sign-on: owner, admin or viewer for someone without a user yet (default: refuse them)",
  OIDC_ACCOUNT: "single sign-on: the account newcomers join (default: the only account)",
};

/** An unset or empty variable is the default. */
const variable = z
  .string()
  .optional()
  .transform((text) => (text === undefined || text.trim() === "" ? undefined : text.trim()));

/** A whole number in a range, or the default when unset. */
function wholeNumber(name: string, min: number, max: number, fallback: number | undefined, rule: string) {
  return variable.transform((text, context) => {
    if (text === undefined) return fallback;
    const value = Number(text);
    if (/^\d+$/.test(text) && value >= min && value <= max) return value;
    context.addIssue({ code: "custom", message: `${name} must be ${rule}, got "${text}".` });
    return z.NEVER;
  });
}

/** A URL that `parse` reads (its error said under the variable's name); undefined when unset. */
function parsedUrl(name: string, parse: (url: string) => unknown) {
  return variable.transform((url, context) => {
    if (url === undefined) return undefined;
    try {
      parse(url);
    } catch (error) {
      context.addIssue({ code: "custom", message: `${name}: ${(error as Error).message}.` });
      return z.NEVER;
    }
    return url;
  });
}

const databaseUrl = parsedUrl("DATABASE_URL", parseDatabaseUrl).transform((url) => url ?? DEFAULT_DATABASE_URL);
const clickhouseUrl = parsedUrl("CLICKHOUSE_URL", parseClickhouseUrl);

/** CLICKHOUSE_URL and CLICKHOUSE_CLUSTER, when set. */
function clickhouseOptions(vars: Partial<Variables>): Pick<TallyOptions, "clickhouse" | "clickhouseCluster"> {
  const { CLICKHOUSE_URL: url, CLICKHOUSE_CLUSTER: cluster } = vars;
  if (url === undefined) {
    if (cluster !== undefined) throw new ConfigError("CLICKHOUSE_CLUSTER needs CLICKHOUSE_URL.");
    return {};
  }
  return { clickhouse: url, ...(cluster === undefined ? {} : { clickhouseCluster: cluster }) };
}

/** An address (`10.0.0.1`) or a CIDR (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrCidr(entry: string): boolean {
  const [address = "", bits, extra] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** TRUST_PROXY: `true`/`false`, a hop count, or comma-separated addresses and CIDRs of trusted proxies. */
const trustProxySchema = variable.transform((text, context): TrustProxy => {
  if (text === undefined || text === "false") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  const bad = entries.find((entry) => !isAddressOrCidr(entry));
  if (bad === undefined) return entries;
  const what = bad === text ? "" : ` ("${bad}" is not an IP address or CIDR)`;
  context.addIssue({
    code: "custom",
    message: `TRUST_PROXY must be true, false, a hop count or comma-separated IP addresses/CIDRs of your proxies, got "${text}"${what}.`,
  });
  return z.NEVER;
});

/** GEOIP_DB: comma-separated paths, each an existing file (opened, and checked, at start). */
const geoipPaths = variable.transform((text, context) => {
  const paths =
    text
      ?.split(",")
      .map((path) => path.trim())
      .filter(Boolean) ?? [];
  for (const path of paths) {
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      // Missing or unreadable: said below.
    }
    if (!isFile) context.addIssue({ code: "custom", message: `GEOIP_DB: no file at ${path}.` });
  }
  return paths;
});

/** TALLY_SECRET: one secret, or several separated by spaces (the first encrypts, all decrypt). */
const serverSecret = variable.transform((text, context) => {
  if (text === undefined) return undefined;
  const secrets = text.split(/\s+/);
  if (secrets.every((secret) => secret.length >= 32)) return secrets;
  context.addIssue({ code: "custom", message: "TALLY_SECRET must be at least 32 characters (each, when several are given)." });
  return z.NEVER;
});

const apiKey = variable.transform((text, context) => {
  if (text !== undefined && text.length < 16) {
    context.addIssue({ code: "custom", message: `TALLY_API_KEY must be at least 16 characters (it has ${text.length}).` });
    return z.NEVER;
  }
  return text;
});

/** A URL with one of the given schemes, or unset. */
function urlVariable(name: string, schemes: readonly string[]) {
  return variable.transform((text, context) => {
    if (text === undefined) return undefined;
    if (schemes.some((scheme) => text.toLowerCase().startsWith(`${scheme}://`)) && URL.canParse(text)) return text;
    context.addIssue({
      code: "custom",
      message: `${name} must be an ${schemes.map((scheme) => `${scheme}://`).join(" or ")} URL, got "${text}".`,
    });
    return z.NEVER;
  });
}

const environmentSchema = z.object({
  PORT: wholeNumber("PORT", 0, 65535, 3000, "0-65535"),
  HOST: variable.transform((text) => text ?? "127.0.0.1"),
  DATABASE_URL: databaseUrl,
  CLICKHOUSE_URL: clickhouseUrl,
  CLICKHOUSE_CLUSTER: variable,
  TALLY_API_KEY: apiKey,
  TALLY_SECRET: serverSecret,
  TRUST_PROXY: trustProxySchema,
  GEOIP_DB: geoipPaths,
  RATE_LIMIT: wholeNumber("RATE_LIMIT", 0, Number.MAX_SAFE_INTEGER, 600, "a whole number of requests per minute (0: no limit)"),
  FLUSH_INTERVAL_MS: wholeNumber("FLUSH_INTERVAL_MS", 1, 86_400_000, undefined, "a whole number of milliseconds from 1 to 86400000"),
  CLOSE_TIMEOUT_MS: wholeNumber("CLOSE_TIMEOUT_MS", 0, 86_400_000, undefined, "a whole number of milliseconds from 0 to 86400000"),
  TALLY_SPILL_DIR: variable,
  SMTP_URL: urlVariable("SMTP_URL", ["smtp", "smtps"]),
  MAIL_FROM: variable,
  PUBLIC_URL: urlVariable("PUBLIC_URL", ["http", "https"]),
  ALERT_INTERVAL_MS: wholeNumber("ALERT_INTERVAL_MS", 0, 86_400_000, undefined, "a whole number of milliseconds from 0 to 86400000"),
  ALERT_RETRY_MS: wholeNumber("ALERT_RETRY_MS", 1, 86_400_000, undefined, "a whole number of milliseconds from 1 to 86400000"),
  OIDC_ISSUER: urlVariable("OIDC_ISSUER", ["https", "http"]),
  OIDC_CLIENT_ID: variable,
  OIDC_CLIENT_SECRET: variable,
  OIDC_DEFAULT_ROLE: variable.transform((text, context) => {
    if (text === undefined || text === "owner" || text === "admin" || text === "viewer") return text;
    context.addIssue({ code: "custom", message: `OIDC_DEFAULT_ROLE must be owner, admin or viewer, got "${text}".` });
    return z.NEVER;
  }),
  OIDC_ACCOUNT: wholeNumber("OIDC_ACCOUNT", 1, Number.MAX_SAFE_INTEGER, undefined, "an account id"),
});

type Variables = ZodInfer<typeof environmentSchema>;

/** Parses with a schema; the first problem becomes a ConfigError (one line). */
function parseEnv<T>(schema: ZodType<T>, env: Env): T {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues[0]?.message ?? "invalid environment");
}

/** SMTP_URL and MAIL_FROM: both or neither; PUBLIC_URL: where links in the e-mails point. */
function mailOptions(vars: Partial<Variables>): Pick<TallyOptions, "mail" | "publicUrl"> {
  const { SMTP_URL: url, MAIL_FROM: from, PUBLIC_URL: publicUrl } = vars;
  if (url !== undefined && from === undefined)
    throw new ConfigError('MAIL_FROM is needed with SMTP_URL (e.g. "Tally <tally@example.com>").');
  return {
    ...(url !== undefined && from !== undefined ? { mail: { url, from } } : {}),
    ...(publicUrl === undefined ? {} : { publicUrl }),
  };
}

/**
 * Tally's options for a command from the variables it reads (its `environment`), each
 * checked: DATABASE_URL, CLICKHOUSE_URL and TALLY_SECRET always; the mail settings for the commands that send reports.
 */
export function tallyOptionsFor(env: Env, variables: readonly string[]): TallyOptions {
  const wanted: { [K in keyof Variables]?: true } = {
    DATABASE_URL: true,
    CLICKHOUSE_URL: true,
    CLICKHOUSE_CLUSTER: true,
    TALLY_SECRET: true,
  };
  for (const name of Object.keys(environmentSchema.shape) as (keyof Variables)[]) if (variables.includes(name)) wanted[name] = true;
  const vars: Partial<Variables> = parseEnv(environmentSchema.pick(wanted), env);
  return {
    database: vars.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    ...clickhouseOptions(vars),
    ...(vars.TALLY_SECRET === undefined ? {} : { secret: vars.TALLY_SECRET }),
    ...mailOptions(vars),
  };
}

/** ALERT_INTERVAL_MS and ALERT_RETRY_MS, when set. */
function alertOptions({ ALERT_INTERVAL_MS: intervalMs, ALERT_RETRY_MS: retryMs }: Variables): Pick<TallyOptions, "alerts"> {
  if (intervalMs === undefined && retryMs === undefined) return {};
  return { alerts: { ...(intervalMs === undefined ? {} : { intervalMs }), ...(retryMs === undefined ? {} : { retryMs }) } };
}

/** OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET: all three or none. */
function ssoConfig(vars: Variables): SsoConfig | undefined {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = vars;
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) return undefined;
  if (issuer === undefined || clientId === undefined || clientSecret === undefined)
    throw new ConfigError("Single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together.");
  return { issuer, clientId, clientSecret, defaultRole: vars.OIDC_DEFAULT_ROLE, account: vars.OIDC_ACCOUNT };
}

/** Everything `tally serve` reads from the environment, checked before anything starts. */
export function serveConfig(env: Env): ServeConfig {
  const vars = parseEnv(environmentSchema, env);
  return {
    port: vars.PORT ?? 3000,
    host: vars.HOST,
    apiKey: vars.TALLY_API_KEY,
    sso: ssoConfig(vars),
    tally: {
      database: vars.DATABASE_URL,
      ...clickhouseOptions(vars),
      ...(vars.TALLY_SECRET === undefined ? {} : { secret: vars.TALLY_SECRET }),
      trustProxy: vars.TRUST_PROXY,
      ...(vars.GEOIP_DB.length > 0 ? { geoip: vars.GEOIP_DB } : {}),
      ...(vars.FLUSH_INTERVAL_MS === undefined ? {} : { flushIntervalMs: vars.FLUSH_INTERVAL_MS }),
      ...(vars.CLOSE_TIMEOUT_MS === undefined ? {} : { closeTimeoutMs: vars.CLOSE_TIMEOUT_MS }),
      ...(vars.TALLY_SPILL_DIR === undefined ? {} : { spillDir: vars.TALLY_SPILL_DIR }),
      ...alertOptions(vars),
      ...mailOptions(vars),
    },
    handler: { rateLimit: vars.RATE_LIMIT === 0 ? false : { limit: vars.RATE_LIMIT ?? 600, windowMs: 60_000 } },
  };
}
