import type { TallyOptions, TrustProxy } from "@tally-analytics/core";
import type { HandlerOptions } from "@tally-analytics/server";
import { UsageError } from "./args.js";

export interface ServeConfig {
  port: number;
  host: string;
  apiKey: string | undefined;
  tally: TallyOptions;
  handler: HandlerOptions;
}

type Env = Record<string, string | undefined>;

/** TRUST_PROXY: `true`/`false`, a hop count, or comma-separated CIDRs. */
export function parseTrustProxy(text: string | undefined): TrustProxy {
  if (text === undefined || text === "" || text === "false") return false;
  if (text === "true") return true;
  if (/^\d+$/.test(text)) return Number(text);
  return text.split(",").map((entry) => entry.trim()).filter(Boolean);
}

function parsePort(text: string | undefined): number {
  if (text === undefined || text === "") return 3000;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`PORT must be 0-65535, got "${text}"`);
  return port;
}

/** RATE_LIMIT: API requests per key per minute; 0 turns the limit off. */
function parseRateLimit(text: string | undefined): NonNullable<HandlerOptions["rateLimit"]> {
  const perMinute = text === undefined || text === "" ? 600 : Number(text);
  if (!Number.isInteger(perMinute) || perMinute < 0) throw new UsageError(`RATE_LIMIT must be a whole number, got "${text}"`);
  return perMinute === 0 ? false : { limit: perMinute, windowMs: 60_000 };
}

export function databaseUrl(env: Env): string {
  return env.DATABASE_URL || "file:./data/tally.sqlite";
}

/** FLUSH_INTERVAL_MS: how often buffered hits are written (the most a hard crash can lose). */
function parseFlushInterval(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 1) throw new UsageError(`FLUSH_INTERVAL_MS must be a whole number of milliseconds above 0, got "${text}"`);
  return ms;
}

/** SMTP_URL and MAIL_FROM: both or neither; PUBLIC_URL: where links in the e-mails point. */
function mailOptions(env: Env): Pick<TallyOptions, "mail" | "publicUrl"> {
  const url = env.SMTP_URL || undefined;
  const from = env.MAIL_FROM || undefined;
  const publicUrl = env.PUBLIC_URL || undefined;
  if (url !== undefined && !/^smtps?:\/\/./i.test(url)) throw new UsageError("SMTP_URL must be an smtp:// or smtps:// URL");
  if (url !== undefined && from === undefined) throw new UsageError("MAIL_FROM is needed with SMTP_URL (e.g. \"Tally <tally@example.com>\")");
  if (publicUrl !== undefined && (!/^https?:\/\/./i.test(publicUrl) || !URL.canParse(publicUrl))) throw new UsageError(`PUBLIC_URL must be an http:// or https:// URL, got "${publicUrl}"`);
  return {
    ...(url !== undefined && from !== undefined ? { mail: { url, from } } : {}),
    ...(publicUrl === undefined ? {} : { publicUrl }),
  };
}

export function tallyOptions(env: Env): TallyOptions {
  const geoip = env.GEOIP_DB?.split(",").map((path) => path.trim()).filter(Boolean);
  const flushIntervalMs = parseFlushInterval(env.FLUSH_INTERVAL_MS);
  return {
    database: databaseUrl(env),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    ...(geoip && geoip.length > 0 ? { geoip } : {}),
    ...(flushIntervalMs === undefined ? {} : { flushIntervalMs }),
    ...mailOptions(env),
  };
}

/** Everything `tally serve` reads from the environment (SPEC §3). */
export function serveConfig(env: Env): ServeConfig {
  return {
    port: parsePort(env.PORT),
    host: env.HOST || "127.0.0.1",
    apiKey: env.TALLY_API_KEY || undefined,
    tally: tallyOptions(env),
    handler: { rateLimit: parseRateLimit(env.RATE_LIMIT) },
  };
}
