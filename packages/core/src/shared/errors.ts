/** Base of every error Tally raises on purpose; the server maps each kind to one HTTP status. */
export class TallyError extends Error {
  override name = "TallyError";
}

/** A resource that does not exist, or belongs to another account (indistinguishable on purpose). */
export class NotFoundError extends TallyError {
  override name = "NotFoundError";
  constructor(message = "Resource not found.") {
    super(message);
  }
}

/** Input that breaks a rule; `errors` maps each field to its messages. */
export class ValidationError extends TallyError {
  override name = "ValidationError";
  constructor(
    readonly errors: Record<string, string[]>,
    message = "The given data was invalid.",
  ) {
    super(message);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** Missing, unknown or revoked credentials. */
export class UnauthorizedError extends TallyError {
  override name = "UnauthorizedError";
  constructor(message = "Unauthenticated.") {
    super(message);
  }
}

/** The store cannot take more work right now (e.g. the write buffer is full); retry later. */
export class UnavailableError extends TallyError {
  override name = "UnavailableError";
  constructor(
    message = "Service temporarily unavailable.",
    /** How long a client should wait before it tries again (HTTP `Retry-After`). */
    readonly retryAfterSeconds = 1,
  ) {
    super(message);
  }
}
