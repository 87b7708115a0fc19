import { NotFoundError, ValidationError, type CollectResult, type HitInput, type Tally } from "@tally-analytics/core";
import type { HitBody } from "./hit-schema.js";
import { parseJsonObject, readText } from "../http/body.js";
import { proxyTrust, type HeaderReader } from "../http/client-ip.js";
import { describeError, HttpError, reportToConsole, type ErrorReporter } from "../http/errors.js";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import type { RequestContext } from "../http/route.js";

/** A hit's body is at most 16 KiB. */
export const COLLECT_BODY_LIMIT = 16 * 1024;

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
  text(): string | Promise<string>;
  socketIp: string | undefined;
  header: HeaderReader;
}

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

/** A body that is not a plain hit, as the schema reads it; the schema is loaded with the first such body: most apps' trackers never send one. */
async function schemaHit(body: Record<string, unknown>): Promise<HitBody> {
  const { hitBody } = await import("./hit-schema.js");
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

/** A hit core refuses is a bad body (400), not a form field error. */
function asBadHit(error: unknown): unknown {
  return error instanceof ValidationError ? new HttpError(400, `Invalid hit: ${Object.values(error.errors).flat().join(" ")}`) : error;
}

function submitHit(tally: Tally, hit: HitInput): Promise<CollectResult> {
  return tally.collect(hit).catch((error: unknown) => {
    throw asBadHit(error);
  });
}

/**
 * Counts the hit of this request's body; without a turn of the event loop or a promise of
 * its own when the body is at hand and a plain hit (what trackers send), core's the only one.
 */
function collectHit(tally: Tally, request: HitRequest): Promise<CollectResult> {
  const text = request.text();
  return typeof text === "string" ? collectText(tally, request, text) : text.then((read) => collectText(tally, request, read));
}

function collectText(tally: Tally, request: HitRequest, text: string): Promise<CollectResult> {
  const body = parseJsonObject(text);
  const plain = plainHit(body);
  return plain ? collectBody(tally, request, plain) : schemaHit(body).then((checked) => collectBody(tally, request, checked));
}

function collectBody(tally: Tally, request: HitRequest, body: HitBody): Promise<CollectResult> {
  // Built here in one literal (not spread from the fields): a hit's copies cost more than its checks.
  return tally.collect({
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
export function answerHit(tally: Tally, request: HitRequest, report: (error: unknown) => void): Promise<CollectAnswer> {
  const refused = (error: unknown) => errorAnswer(asBadHit(error), report);
  try {
    return collectHit(tally, request).then(resultAnswer, refused);
  } catch (error) {
    return Promise.resolve(refused(error));
  }
}

const resultAnswer = (result: CollectResult) => (result.status === "dropped" ? droppedAnswer(result.reason) : ACCEPTED);

function errorAnswer(error: unknown, report: (error: unknown) => void): CollectAnswer {
  const { status, payload, headers } = describeError(error, report);
  // Said where a developer looks (the tracker's request in devtools), as a deliberate drop is.
  return answerOf(status, payload, error instanceof NotFoundError ? { ...headers, "x-tally-dropped": "unknown-website" } : headers);
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
