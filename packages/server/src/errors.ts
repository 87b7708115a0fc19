import { NotFoundError, TallyError, UnauthorizedError, UnavailableError, ValidationError } from "@tally/core";
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
  serverError: "Server error.",
} as const;

export const reportToConsole: ErrorReporter = (error, request) => {
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const { pathname } = new URL(request.url);
  console.error(`[tally] ${request.method} ${pathname} failed: ${reason.split("\n", 1)[0]}`);
};

/** The one place where an error becomes an HTTP status and a JSON body; never a stack trace. */
export function errorResponse(error: unknown, request: Request, report: ErrorReporter = reportToConsole): Response {
  if (error instanceof HttpError) return json(error.status, { message: error.message }, error.headers);
  if (error instanceof ValidationError) return json(422, { message: error.message, errors: error.errors });
  if (error instanceof UnauthorizedError) {
    return json(401, { message: error.message }, { "www-authenticate": 'Bearer realm="tally"' });
  }
  if (error instanceof NotFoundError) return json(404, { message: error.message });
  if (error instanceof UnavailableError) return json(503, { message: error.message }, { "retry-after": "1" });
  // A TallyError raised on purpose that has no kind of its own is still the caller's fault.
  if (error instanceof TallyError) return json(400, { message: error.message });
  report(error, request);
  return json(500, { message: MESSAGES.serverError });
}
