/** An answer of Tally's API other than a success: its status, message and, on a 422, every field's messages. */
export class TallyApiError extends Error {
  override name = "TallyApiError";
  constructor(
    /** The HTTP status: 401, 404, 422, 429… */
    readonly status: number,
    message: string,
    /** 422 only: each invalid field (`domain`, `filter.0`…) with its messages; empty otherwise. */
    readonly errors: Readonly<Record<string, readonly string[]>> = {},
    /** Seconds to wait, from `Retry-After` (429, 503); null when absent. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

export const isTallyApiError = (error: unknown): error is TallyApiError => error instanceof TallyApiError;
