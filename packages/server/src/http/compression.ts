// Content negotiation for Accept-Encoding: brotli or gzip for text answers, compressed
// per request for dynamic ones (JSON, pages), sent as built for precompressed files.
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

export type Encoding = "br" | "gzip";

/** Smaller text answers go out as they are: their compressed form would not be smaller by a packet. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Fast levels for answers compressed per request (what CDNs use); built files use the highest. */
const BROTLI_QUALITY = 4;
const GZIP_LEVEL = 6;

const TEXT = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/i;

const compressors: Record<Encoding, (body: Uint8Array) => Promise<Buffer>> = {
  br: (body) =>
    promisify(brotliCompress)(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  gzip: (body) => promisify(gzip)(body, { level: GZIP_LEVEL }),
};

/** `q` of each coding the client named (`*` stands for the others); 0 means refused. */
function qualities(header: string): Map<string, number> {
  const accepted = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    if (name === "") continue;
    const q = params.find((param) => param.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    accepted.set(name, Number.isFinite(value) ? value : 0);
  }
  return accepted;
}

/** The coding to answer with: brotli when the client takes it at least as gladly as gzip, else gzip, else none. */
export function preferredEncoding(acceptEncoding: string | null): Encoding | null {
  if (!acceptEncoding) return null;
  const accepted = qualities(acceptEncoding);
  const wildcard = accepted.get("*") ?? 0;
  const q = (name: Encoding) => accepted.get(name) ?? wildcard;
  const [br, gz] = [q("br"), q("gzip")];
  if (br > 0 && br >= gz) return "br";
  return gz > 0 ? "gzip" : null;
}

/** Adds `Accept-Encoding` to the response's Vary (a cache must keep one copy per coding). */
export function varyOnEncoding(headers: Headers): void {
  const vary = headers.get("vary");
  if (vary === null) headers.set("vary", "Accept-Encoding");
  else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.set("vary", `${vary}, Accept-Encoding`);
}

/** Whether a response is a text answer this module may compress. */
function compressible(request: Request, response: Response): boolean {
  if (request.method === "HEAD" || response.body === null || response.status < 200 || response.status === 204 || response.status === 206)
    return false;
  if (response.headers.has("content-encoding") || response.headers.has("content-disposition")) return false;
  return TEXT.test(response.headers.get("content-type") ?? "");
}

/**
 * The response compressed as the request accepts, when it is text of at least
 * MIN_COMPRESSED_BYTES and not encoded yet (precompressed files, or anything a host
 * already encoded, pass as they are). A strong ETag becomes weak: the bytes differ.
 */
export async function compressResponse(request: Request, response: Response): Promise<Response> {
  if (!compressible(request, response)) return response;
  const body = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  const init = { status: response.status, statusText: response.statusText, headers };
  if (body.length < MIN_COMPRESSED_BYTES) return new Response(body, init);
  varyOnEncoding(headers);
  const encoding = preferredEncoding(request.headers.get("accept-encoding"));
  if (encoding === null) return new Response(body, init);
  const etag = headers.get("etag");
  if (etag !== null && !etag.startsWith("W/")) headers.set("etag", `W/${etag}`);
  headers.set("content-encoding", encoding);
  headers.delete("content-length");
  return new Response(new Uint8Array(await compressors[encoding](body)), init);
}
