/**
 * Helpers for the multi-instance proof (PostgreSQL, and ClickHouse beside it): real `tally serve` processes, a
 * deterministic set of hits, a sender that keeps each visitor's hits in order while
 * many visitors run at once, and a reader of all 17 statistics.
 */
import { seededRandom } from "../support/random.js";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createTally, STAT_NAMES, type StatName, type StatRow } from "@tally-analytics/core";

export const CLI_BIN = fileURLToPath(new URL("../../packages/cli/dist/bin.js", import.meta.url));

export function assertCliBuilt(): void {
  if (!existsSync(CLI_BIN)) throw new Error(`${CLI_BIN} is missing: run \`pnpm build\` first.`);
}

// ---------------------------------------------------------------------------
// Real `tally serve` processes

export interface ServeProcess {
  /** `http://127.0.0.1:<port>` */
  base: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for the exit (the process flushes first); resolves with the exit code. */
  stop(): Promise<number | null>;
}

export interface ServeEnv {
  DATABASE_URL: string;
  TALLY_API_KEY: string;
  /** Any other setting of `tally serve` (SMTP_URL, ALERT_INTERVAL_MS…). */
  [variable: string]: string;
}

/** Spawns `node packages/cli/dist/bin.js serve` and resolves when it prints its listening line. */
export function spawnServe(env: ServeEnv, timeoutMs = 20_000): Promise<ServeProcess> {
  const child: ChildProcess = spawn(process.execPath, [CLI_BIN, "serve"], {
    env: { ...process.env, ...env, PORT: "0", HOST: "127.0.0.1", TRUST_PROXY: "true", RATE_LIMIT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const process_: ServeProcess = {
    base: "",
    stdout: () => out,
    stderr: () => err,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
  return new Promise<ServeProcess>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`tally serve did not start within ${timeoutMs} ms.\nstdout:\n${out}\nstderr:\n${err}`));
    }, timeoutMs);
    const onData = () => {
      const match = /Tally is listening on (http:\/\/\S+)/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      resolve({ ...process_, base: match[1]! });
    };
    child.stdout!.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`tally serve exited with ${code} before listening.\nstdout:\n${out}\nstderr:\n${err}`));
    });
  });
}

// ---------------------------------------------------------------------------
// Deterministic hits

export { seededRandom };

const USER_AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51",
  "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
];
const PAGES = ["/", "/products", "/products/42", "/products/7?color=red", "/cart", "/checkout", "/blog/hello-world", "/about", "/Über"];
const REFERRERS = [
  "https://www.google.com/search?q=shop",
  "https://news.ycombinator.com/item?id=1",
  "https://t.co/abc",
  "https://duckduckgo.com/",
  "https://www.reddit.com/r/shops/",
];
const CAMPAIGNS = ["spring_sale", "newsletter", "launch"];
const SCREENS = ["1920x1080", "1440x900", "390x844", "412x915", "820x1180", "2560x1440"];
const LANGUAGES = ["en-US", "de-DE", "fr", "es-ES", "ja", "pt-BR"];
const EVENTS = ["Signup", "Add to cart", "Outbound Link: Click"];

/** One hit, host-independent: `path` is joined to the website's origin when it is sent. */
export interface GeneratedHit {
  path: string;
  /** An absolute external referrer, an internal path, or null. */
  referrer: string | null;
  screen: string | null;
  language: string | null;
  event: string | null;
  props: Record<string, string | number | boolean> | null;
}

export interface GeneratedVisitor {
  ip: string;
  userAgent: string;
  hits: GeneratedHit[];
}

export function generateVisitors(seed: number, count: number): GeneratedVisitor[] {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const visitors: GeneratedVisitor[] = [];
  for (let v = 0; v < count; v++) {
    // Distinct addresses: IPv4 for most, IPv6 for every seventh.
    const ip =
      v % 7 === 6
        ? `2001:db8:${(v >> 8).toString(16)}::${(v & 0xff).toString(16)}`
        : `10.${(v >> 16) & 0xff}.${(v >> 8) & 0xff}.${v & 0xff}`;
    const screen = pick(SCREENS);
    const language = pick(LANGUAGES);
    const hits: GeneratedHit[] = [];
    const length = 2 + Math.floor(random() * 8);
    let previous: string | null = null;
    for (let h = 0; h < length; h++) {
      let path = pick(PAGES);
      let referrer: string | null = previous;
      // First hits often come from elsewhere; later ones now and then (a new visit).
      if (h === 0 ? random() < 0.5 : random() < 0.08) referrer = pick(REFERRERS);
      if (h === 0 ? random() < 0.25 : random() < 0.05) path += `${path.includes("?") ? "&" : "?"}utm_campaign=${pick(CAMPAIGNS)}`;
      const isEvent = h > 0 && random() < 0.2;
      hits.push({
        path: isEvent && previous ? previous : path,
        referrer,
        // Screens and languages are sometimes missing, and a phone sometimes turns.
        screen: random() < 0.1 ? null : random() < 0.05 ? screen.split("x").reverse().join("x") : screen,
        language: random() < 0.1 ? null : random() < 0.03 ? pick(LANGUAGES) : language,
        event: isEvent ? pick(EVENTS) : null,
        props: isEvent && random() < 0.5 ? { plan: pick(["free", "pro"]), amount: Math.floor(random() * 100) } : null,
      });
      if (!isEvent) previous = path;
    }
    visitors.push({ ip, userAgent: pick(USER_AGENTS), hits });
  }
  return visitors;
}

// ---------------------------------------------------------------------------
// Sending

/** Lets at most `limit` tasks run at once. */
export function semaphore(limit: number) {
  let active = 0;
  const waiting: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await task();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

export function collectBody(origin: string, hit: GeneratedHit): string {
  const referrer = hit.referrer === null ? undefined : hit.referrer.startsWith("/") ? origin + hit.referrer : hit.referrer;
  return JSON.stringify({
    u: origin + hit.path,
    ...(referrer === undefined ? {} : { r: referrer }),
    ...(hit.screen ? { s: hit.screen } : {}),
    ...(hit.language ? { l: hit.language } : {}),
    ...(hit.event ? { n: hit.event } : {}),
    ...(hit.props ? { p: hit.props } : {}),
  });
}

/**
 * A connection per request. A kept-alive connection that sat idle is closed by the server
 * after 5 s (Node's keepAliveTimeout); fetch stops reusing it after 4 s by its own timer,
 * and when this process lags by more than the second between the two (a loaded machine:
 * 2.4 s measured), a hit is written on a connection the server is closing, and fetch fails
 * with "other side closed" without knowing whether the hit arrived.
 */
const NEW_CONNECTION = { connection: "close" } as const;

export async function postHit(base: string, origin: string, visitor: GeneratedVisitor, hit: GeneratedHit): Promise<void> {
  const response = await fetch(`${base}/collect`, {
    method: "POST",
    body: collectBody(origin, hit),
    headers: { ...NEW_CONNECTION, "content-type": "text/plain", "user-agent": visitor.userAgent, "x-forwarded-for": visitor.ip },
  });
  const text = await response.text();
  if (response.status !== 202 || response.headers.has("x-tally-dropped")) {
    throw new Error(`POST ${base}/collect answered ${response.status} ${response.headers.get("x-tally-dropped") ?? ""}: ${text}`);
  }
}

/** The instance's `stats` read flushes its buffer first: after this, every hit it accepted is committed. */
export async function forceFlush(base: string, key: string, websiteId: number, day: string): Promise<void> {
  const giveUp = Date.now() + 60_000;
  for (;;) {
    const response = await fetch(`${base}/api/v1/stats/${websiteId}?name=pageviews&from=${day}&to=${day}`, {
      headers: { ...NEW_CONNECTION, authorization: `Bearer ${key}`, accept: "application/json" },
    });
    const text = await response.text();
    if (response.status === 200) return;
    // A failed write is retried by the next flush (e.g. after a deadlock, or a store slow to
    // answer on a loaded machine): ask again, for a minute.
    if (Date.now() > giveUp) throw new Error(`stats read on ${base} answered ${response.status}: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// ---------------------------------------------------------------------------
// Reading the statistics

export type Statistics = Record<StatName, { rows: StatRow[]; total: number; sum: number }>;

/** Where an installation keeps its data: the database, and ClickHouse when its hits go there too. */
export interface Installation {
  database: string;
  clickhouse?: string;
}

/** The `createTally` options of an installation. */
export const tallyOptions = ({ database, clickhouse }: Installation) => ({ database, ...(clickhouse === undefined ? {} : { clickhouse }) });

/** The environment of `tally serve` on an installation. */
export const serveEnv = ({ database, clickhouse }: Installation) => ({
  DATABASE_URL: database,
  ...(clickhouse === undefined ? {} : { CLICKHOUSE_URL: clickhouse }),
});

/** All 17 statistics of one website over [from, to], every page, read in-process on an installation. */
export async function readStatistics(installation: Installation, domain: string, from: string, to: string): Promise<Statistics> {
  const tally = createTally(tallyOptions(installation));
  const { database } = installation;
  try {
    await tally.ready();
    const [account] = await tally.accounts.list();
    const { data: websites } = await tally.websites.list(account!.id, { perPage: 100 });
    const website = websites.find((w) => w.domain === domain);
    if (!website) throw new Error(`no website ${domain} in ${database}`);
    const statistics = {} as Statistics;
    // event_property needs an event and a property to break down: every other statistic is read.
    for (const name of STAT_NAMES.filter((n) => n !== "event_property")) {
      const rows: StatRow[] = [];
      let total = 0;
      for (let page = 1; ; page++) {
        const result = await tally.stats.query(account!.id, website.id, { name, from, to, per_page: 100, page });
        rows.push(...result.data);
        total = result.total;
        if (rows.length >= result.total || result.data.length === 0) break;
      }
      statistics[name] = { rows, total, sum: rows.reduce((sum, row) => sum + row.count, 0) };
    }
    return statistics;
  } finally {
    await tally.close();
  }
}

export const todayUtc = () => new Date().toISOString().slice(0, 10);
export const hourUtc = () => new Date().toISOString().slice(0, 13);
