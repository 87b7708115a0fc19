import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { TrustProxy } from "@tally-analytics/core";
import { proxyTrust } from "../http/client-ip.js";

/** What Express (or a body parser before Tally) may have added to the request. */
export interface NodeRequest extends IncomingMessage {
  originalUrl?: string;
  baseUrl?: string;
  body?: unknown;
}

export function toWebHeaders(headers: IncomingHttpHeaders): Headers {
  const result = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.startsWith(":")) continue;
    for (const item of Array.isArray(value) ? value : [value]) result.append(name, item);
  }
  return result;
}

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)?.split(",")[0]?.trim();

/** Scheme and host the client used: X-Forwarded-Proto/-Host only count when the peer is a trusted proxy. */
export function publicOrigin(req: IncomingMessage, trustProxy: TrustProxy | undefined): string {
  const forwarded = proxyTrust(trustProxy).trusts(req.socket.remoteAddress);
  const encrypted = "encrypted" in req.socket && req.socket.encrypted === true;
  const proto = (forwarded && first(req.headers["x-forwarded-proto"])) || (encrypted ? "https" : "http");
  const host = (forwarded && first(req.headers["x-forwarded-host"])) || req.headers.host || "localhost";
  const claimed = `${proto === "https" ? "https" : "http"}://${host}`;
  let origin = origins.get(claimed);
  if (origin === undefined) {
    try {
      origin = new URL(claimed).origin;
    } catch {
      origin = "http://localhost";
    }
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(claimed, origin);
  }
  return origin;
}

/** Origins as the client named them → as a URL reads them: a site has a few, and every page request asks. */
const origins = new Map<string, string>();
const MAX_ORIGINS = 256;

const FORM = /^application\/x-www-form-urlencoded/i;

function appendForm(form: URLSearchParams, key: string, value: unknown): void {
  if (Array.isArray(value)) for (const item of value) appendForm(form, key, item);
  else if (value !== null && typeof value === "object") {
    for (const [name, item] of Object.entries(value)) appendForm(form, `${key}[${name}]`, item);
  } else if (value !== undefined) form.append(key, String(value));
}

/** A body a parser already consumed, written back as what its content type says it was. */
function reserialize(body: unknown, contentType: string): string | Uint8Array<ArrayBuffer> {
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  if (!FORM.test(contentType)) return JSON.stringify(body);
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(body as object)) appendForm(form, key, value);
  return form.toString();
}

/** IncomingMessage → Request: full public URL, headers, body streamed or re-serialised, aborted on close. */
export function toWebRequest(req: NodeRequest, origin: string, signal: AbortSignal): Request {
  const headers = toWebHeaders(req.headers);
  const init: RequestInit & { duplex?: "half" } = { method: req.method ?? "GET", headers, signal };
  if (init.method !== "GET" && init.method !== "HEAD") {
    if (req.body !== undefined && req.readableEnded) {
      init.body = reserialize(req.body, headers.get("content-type") ?? "");
      for (const name of ["content-length", "content-encoding", "transfer-encoding"]) headers.delete(name);
    } else {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = "half";
    }
  }
  // Concatenated, not resolved: a path like `//other.host/x` must stay a path.
  return new Request(`${origin}${req.originalUrl ?? req.url ?? "/"}`, init);
}

/** Downloads (exports) are streamed as they are produced; API answers are sent whole, with a Content-Length. */
export const isDownload = (response: Response) => response.body !== null && response.headers.has("content-disposition");

/** Response → ServerResponse. A body left unread (413) closes the connection instead of being drained. */
export async function sendWebResponse(req: IncomingMessage, res: ServerResponse, response: Response): Promise<void> {
  const streamed = req.method !== "HEAD" && isDownload(response);
  const body = req.method === "HEAD" || streamed ? new Uint8Array() : new Uint8Array(await response.arrayBuffer());
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) res.setHeader("set-cookie", cookies);
  if (!req.complete) res.setHeader("connection", "close");
  if (streamed) await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), res);
  else res.end(body);
}
