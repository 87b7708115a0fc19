import { NotFoundError, TallyError, UnauthorizedError, UnavailableError, ValidationError } from "@tally-analytics/core";
import { json } from "./json-response.js";

/** Called with every unexpected error before the client gets a bare 500. */
export type ErrorReporter = (error: unknown, request: Request) => void;

/** What the server itself refuses (routing, bodies, limits), as opposed to domain errors from core. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const MESSAGES = {
  badRequest: "Bad request.",
  notFound: "Not found.",
  methodNotAllowed: "Method not allowed.",
  tooLarge: "The request body is too large.",
  unsupportedMediaType: "Unsupported media type: send application/x-www-form-urlencoded or application/json.",
  tooManyAttempts: "Too Many Attempts.",
  crossSite: "Cross-site request refused: send it from the same origin.",
  formWithSession: "Send application/json: form bodies are not accepted on requests signed in by the host's session.",
  serverError: "Server error.",
} as const;

/** 429 with the seconds to wait. */
export function tooManyAttempts(retryAfter: number): HttpError {
  return new HttpError(429, MESSAGES.tooManyAttempts, { "retry-after": String(retryAfter) });
}

export const reportToConsole: ErrorReporter = (error, request) => {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const { pathname } = new URL(request.url);
  console.error(`[tally] ${request.method} ${pathname} failed: ${reason.split("\n", 1)[0]}`);
};

/** An error as the client sees it: status, JSON payload (without `status`) and headers. */
export interface ErrorAnswer {
  status: number;
  payload: { message: string; errors?: Record<string, string[]> };
  headers: Record<string, string>;
}

/**
 * The one place where an error becomes an HTTP status and a JSON body; never a stack
 * trace. `report` hears only of the unexpected ones (the bare 500s).
 */
export function describeError(error: unknown, report: (error: unknown) => void): ErrorAnswer {
  const answer = (status: number, message: string, headers: Record<string, string> = {}): ErrorAnswer => ({
    status,
    payload: { message },
    headers,
  });
  if (error instanceof HttpError) return answer(error.status, error.message, error.headers);
  if (error instanceof ValidationError) return { status: 422, payload: { message: error.message, errors: error.errors }, headers: {} };
  if (error instanceof UnauthorizedError) return answer(401, error.message, { "www-authenticate": 'Bearer realm="tally"' });
  if (error instanceof NotFoundError) return answer(404, error.message);
  if (error instanceof UnavailableError) return answer(503, error.message, { "retry-after": String(error.retryAfterSeconds) });
  // A TallyError raised on purpose that has no kind of its own is still the caller's fault.
  if (error instanceof TallyError) return answer(400, error.message);
  report(error);
  return answer(500, MESSAGES.serverError);
}

export function errorResponse(error: unknown, request: Request, report: ErrorReporter = reportToConsole): Response {
  const { status, payload, headers } = describeError(error, (unexpected) => report(unexpected, request));
  return json(status, payload, headers);
}
