// A built text file (the tracker, the dashboard's script and styles) with the gzip and
// brotli forms its build made: sent in the form the client takes, revalidated by ETag.
import { preferredEncoding, varyOnEncoding, type Encoding } from "./compression.js";

export interface StaticText {
  body: string;
  contentType: string;
  /** The content's version, unquoted: each form's ETag is it quoted, with `-br` or `-gzip` for those. */
  version: string;
  /** gzip and brotli forms, base64 (as the builds export them). */
  encoded: { readonly gzip: string; readonly br: string };
}

const decoded = new WeakMap<StaticText["encoded"], Record<Encoding, Uint8Array<ArrayBuffer>>>();

function bytesOf(text: StaticText, encoding: Encoding): Uint8Array<ArrayBuffer> {
  let forms = decoded.get(text.encoded);
  if (!forms) {
    forms = { gzip: new Uint8Array(Buffer.from(text.encoded.gzip, "base64")), br: new Uint8Array(Buffer.from(text.encoded.br, "base64")) };
    decoded.set(text.encoded, forms);
  }
  return forms[encoding];
}

/** Whether If-None-Match names this content in any of its forms (strong or weak, in a list, or `*`). */
function matches(request: Request, version: string): boolean {
  return (request.headers.get("if-none-match") ?? "")
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag.replace(/-(br|gzip)"$/, '"') === `"${version}"`);
}

/** 200 with the body in the best form the client accepts, or 304 when it holds this version already. */
export function staticTextResponse(request: Request, text: StaticText, headers: Record<string, string>): Response {
  const encoding = preferredEncoding(request.headers.get("accept-encoding"));
  const all = new Headers({ ...headers, etag: `"${text.version}${encoding ? `-${encoding}` : ""}"` });
  varyOnEncoding(all);
  if (matches(request, text.version)) return new Response(null, { status: 304, headers: all });
  all.set("content-type", text.contentType);
  if (encoding) all.set("content-encoding", encoding);
  const body = request.method === "HEAD" ? null : encoding ? bytesOf(text, encoding) : text.body;
  return new Response(body, { status: 200, headers: all });
}
