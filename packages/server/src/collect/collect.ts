import { NotFoundError, ValidationError, type CollectResult, type HitInput, type Tally } from "@tally-analytics/core";
import { revenueBody } from "@tally-analytics/core/internal";
import * as z from "zod";
import { parseJsonObject, readText } from "../http/body.js";
import { proxyTrust, type HeaderReader } from "../http/client-ip.js";
import { describeError, HttpError, reportToConsole, type ErrorReporter } from "../http/errors.js";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import type { RequestContext } from "../http/route.js";

/** A hit's body is at most 16 KiB. */
export const COLLECT_BODY_LIMIT = 16 * 1024;

/** The tracker's short keys. Lengths are checked again, with the hit's own rules, in core. */
export const hitBody = z
  .object({
    u: z
      .string({ error: "u (the page URL) is required." })
      .meta({ description: "The page's URL; its host names the website.", example: "https://example.com/pricing?utm_campaign=launch" }),
    r: z.string().nullish().meta({ description: "The referrer.", example: "https://news.ycombinator.com/" }),
    s: z.string().nullish().meta({ description: "Screen size, `WxH`.", example: "1920x1080" }),
    l: z.string().nullish().meta({ description: "Language.", example: "en-US" }),
    n: z.string().nullish().meta({ description: "Event name; absent (or `pageview`) for a pageview.", example: "Signup" }),
    p: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .nullish()
      .meta({ description: "The event's or the pageview's properties.", example: { plan: "pro" } }),
    $: revenueBody,
    h: z
      .union([z.literal(0), z.literal(1), z.boolean()])
      .nullish()
      .meta({ description: "Hash routing: the URL's fragment is part of the page." }),
    e: z.number().nullish().meta({
      description:
        "An engagement signal, not a hit: milliseconds the page was visible and focused since the last signal (sent when it is hidden or left; at most 6 hours count). Never with `n`.",
      example: 12500,
    }),
    d: z.number().nullish().meta({
      description: "With an engagement signal (`e`): the deepest percentage of the page seen, an integer 0–100.",
      example: 75,
    }),
    w: z
      .object({
        lcp: z.number().nullish(),
        inp: z.number().nullish(),
        cls: z.number().nullish(),
        fcp: z.number().nullish(),
        ttfb: z.number().nullish(),
      })
      .strict()
      .nullish()
      .meta({
        description:
          "With an engagement signal (`e`): the pageview's web vitals, each optional: `lcp`, `inp`, `fcp`, `ttfb` in milliseconds (at most 600000), `cls` a score (at most 10).",
        example: { lcp: 1800, inp: 120, cls: 0.05, fcp: 900, ttfb: 300 },
      }),
    v: z.string().max(64).nullish().meta({
      description:
        "A pageview's server mark, read from the page's `Server-Timing: tally;desc=…`: the app's server counted this view already (the middleware), and this pageview only adds screen size and language to it.",
    }),
  })
  .meta({ id: "Hit" });

/** Sent on every /collect answer, errors included: any site may post hits, none may read them. */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "Content-Type",
  "access-control-expose-headers": "X-Tally-Dropped",
  "access-control-max-age": "86400",
} as const;

/** A /collect answer as plain values, for any transport to write. */
export interface CollectAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What a transport knows of a hit's request. */
export interface HitRequest {
  /** Reads the body as UTF-8 text within COLLECT_BODY_LIMIT (whatever its Content-Type:
   * trackers send text/plain to skip the preflight); throws HttpError 413/400 otherwise. */
  text(): Promise<string>;
  socketIp: string | undefined;
  header: HeaderReader;
}

type HitBody = z.infer<typeof hitBody>;

const isText = (value: unknown) => value === undefined || value === null || typeof value === "string";
const isNumber = (value: unknown) => value === undefined || value === null || (typeof value === "number" && Number.isFinite(value));

function isPlainProps(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value !== "object" || Array.isArray(value)) return false;
  for (const key in value) {
    if (key === "__proto__") return false;
    const item = (value as Record<string, unknown>)[key];
    if (typeof item !== "string" && typeof item !== "boolean" && !(typeof item === "number" && Number.isFinite(item))) return false;
  }
  return true;
}

/**
 * The body as `hitBody` reads it, when it is a plain hit (what trackers send): checked
 * field by field without the schema, which costs more than the rest of the answer. Anything
 * else (revenue, web vitals, a wrong type) answers undefined, and the schema decides.
 */
function plainHit(body: Record<string, unknown>): HitBody | undefined {
  const { u, r, s, l, n, p, h, e, d, v } = body;
  if (typeof u !== "string" || !isText(r) || !isText(s) || !isText(l) || !isText(n) || !isText(v)) return undefined;
  if ((typeof v === "string" && v.length > 64) || !isPlainProps(p) || !isNumber(e) || !isNumber(d)) return undefined;
  if (!(h === undefined || h === null || h === 0 || h === 1 || typeof h === "boolean")) return undefined;
  if ((body.$ !== undefined && body.$ !== null) || (body.w !== undefined && body.w !== null)) return undefined;
  return body as HitBody;
}

function parseHit(text: string): HitBody {
  const body = parseJsonObject(text);
  const plain = plainHit(body);
  if (plain) return plain;
  const result = hitBody.safeParse(body);
  if (!result.success)
    throw new HttpError(400, `Invalid hit: ${result.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`);
  return result.data;
}

/** The transport gave no socket address, and no trusted proxy header names one: what to pass. */
const UNKNOWN_ADDRESS =
  "The client address is unknown: the adapter passes it (toNodeHandler, tallyPlugin, tallyHono); with createHandler, pass it as createHandler(tally)(request, { ip }), or set trustProxy when a proxy in front sets X-Forwarded-For.";

/** A hit as a tracker describes it: everything but who sent it (the request tells that). */
export type HitFields = Omit<HitInput, "ip" | "userAgent">;

/**
 * Counts one hit of this request through `tally.collect`, with the client's address and
 * user agent: what every tracker's endpoint (Tally's, Plausible's, Umami's, GoatCounter's) does.
 * A hit that breaks core's rules is a 400 (a bad body), not a form field error.
 */
export async function countHit(tally: Tally, request: HitRequest, fields: HitFields): Promise<CollectResult> {
  const ip = clientIpOf(tally, request);
  return submitHit(tally, { ...fields, ip, userAgent: request.header("user-agent") ?? "" });
}

function clientIpOf(tally: Tally, request: HitRequest): string {
  const ip = proxyTrust(tally.options.trustProxy).clientIp(request.socketIp, request.header);
  if (!ip) throw new HttpError(400, UNKNOWN_ADDRESS);
  return ip;
}

function submitHit(tally: Tally, hit: HitInput): Promise<CollectResult> {
  return tally.collect(hit).catch((error: unknown) => {
    if (error instanceof ValidationError) throw new HttpError(400, `Invalid hit: ${Object.values(error.errors).flat().join(" ")}`);
    throw error;
  });
}

async function collectHit(tally: Tally, request: HitRequest): Promise<CollectResult> {
  const body = parseHit(await request.text());
  // Built here in one literal (not spread from the fields): a hit's copies cost more than its checks.
  return submitHit(tally, {
    url: body.u,
    referrer: body.r,
    screen: body.s,
    language: body.l,
    event: body.n,
    props: body.p,
    revenue: body.$,
    hash: body.h === 1 || body.h === true,
    engagedMs: body.e,
    scrollDepth: body.d,
    vitals: body.w,
    view: body.v,
    ip: clientIpOf(tally, request),
    userAgent: request.header("user-agent") ?? "",
  });
}

/** The whole answer of a request that breaks no rule. */
function answerOf(status: number, payload: object, headers: Record<string, string>): CollectAnswer {
  return {
    status,
    headers: { ...CORS_HEADERS, ...headers, ...NOSNIFF, "content-type": JSON_CONTENT_TYPE },
    body: JSON.stringify({ ...payload, status }),
  };
}

/** The answers of counted and dropped hits, built once: every hit answers one of them. */
const ACCEPTED = Object.freeze(answerOf(202, { message: "Accepted." }, {}));
const DROPPED = new Map<string, CollectAnswer>();
function droppedAnswer(reason: string): CollectAnswer {
  let answer = DROPPED.get(reason);
  if (!answer)
    DROPPED.set(reason, (answer = Object.freeze(answerOf(202, { message: `Dropped: ${reason}.` }, { "x-tally-dropped": reason }))));
  return answer;
}

/**
 * POST /collect on plain values: the fetch route and the Node and Fastify fast paths
 * (which skip building a Request and a Response: this is the hot path) all call it.
 * The client's timestamp is never trusted.
 */
export async function answerHit(tally: Tally, request: HitRequest, report: (error: unknown) => void): Promise<CollectAnswer> {
  try {
    const result = await collectHit(tally, request);
    return result.status === "dropped" ? droppedAnswer(result.reason) : ACCEPTED;
  } catch (error) {
    const { status, payload, headers } = describeError(error, report);
    // Said where a developer looks (the tracker's request in devtools), as a deliberate drop is.
    return answerOf(status, payload, error instanceof NotFoundError ? { ...headers, "x-tally-dropped": "unknown-website" } : headers);
  }
}

/** Reports an unexpected /collect failure through the handler's reporter, which speaks of Requests. */
export function collectReporter(report: ErrorReporter = reportToConsole): (error: unknown) => void {
  return (error) => report(error, new Request("http://tally.invalid/collect", { method: "POST" }));
}

/** A fetch Request as a hit's request. */
export function hitRequestOf(request: Request, socketIp: string | undefined): HitRequest {
  return { text: () => readText(request, COLLECT_BODY_LIMIT), socketIp, header: (name: string) => request.headers.get(name) };
}

/** The route-table entry: the fetch handler's way in. */
export async function collect({ tally, request, ip }: RequestContext<unknown, unknown>): Promise<Response> {
  const answer = await answerHit(tally, hitRequestOf(request, ip), collectReporter());
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
