import { HttpError, MESSAGES } from "./errors.js";

/** The answer to a body that broke off (the client aborted, or was cut for being too slow). */
export const UNREADABLE_BODY = "The request body could not be read.";

/** Largest API request body, in bytes. */
export const DEFAULT_BODY_LIMIT = 64 * 1024;

/**
 * Reads the whole body, refusing with 413 as soon as it is known to exceed `limit`
 * (from Content-Length, or while streaming when the length is not declared).
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) throw new HttpError(413, MESSAGES.tooLarge);
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      // Stop reading but leave the stream alone: the adapter decides what happens to the connection.
      if (size > limit) throw new HttpError(413, MESSAGES.tooLarge);
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, UNREADABLE_BODY);
  } finally {
    reader.releaseLock();
  }
  return concat(chunks, size);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

export const mediaType = (request: Request) => (request.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();

/**
 * A form or JSON body as a plain object. Form fields repeated take their last value.
 * A JSON body must be an object: anything else is a malformed request (400), not a field error.
 */
export async function readFields(request: Request, limit: number): Promise<Record<string, unknown>> {
  const text = await readText(request, limit);
  if (text.trim() === "") return {};
  const type = mediaType(request);
  if (type === "application/x-www-form-urlencoded") return Object.fromEntries(new URLSearchParams(text));
  if (type === "application/json" || type.endsWith("+json")) return parseJsonObject(text);
  throw new HttpError(415, MESSAGES.unsupportedMediaType);
}

/** The body as UTF-8 text; malformed UTF-8 is a bad request, not silently replaced. */
export async function readText(request: Request, limit: number): Promise<string> {
  return decodeUtf8(await readBody(request, limit));
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Bytes as UTF-8 text; malformed UTF-8 is a 400. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new HttpError(400, "The request body is not valid UTF-8.");
  }
}

export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "The request body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "The request body must be a JSON object.");
  }
  return value as Record<string, unknown>;
}
