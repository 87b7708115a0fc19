import { createHmac, randomBytes } from "node:crypto";

/**
 * Webhooks are signed as Standard Webhooks (standardwebhooks.com) sign them, so receivers can
 * check them with that project's libraries: `webhook-id` (the same at every attempt: drop
 * repeats by it), `webhook-timestamp` (this attempt, Unix seconds) and `webhook-signature`,
 * `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes.
 */
const SECRET_PREFIX = "whsec_";

/** A new signing key: `whsec_` and 24 random bytes in base64. */
export const newWebhookSecret = (): string => `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`;

export function signatureHeaders(secret: string, id: string, body: string, timestampSeconds: number): Record<string, string> {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
  const signature = createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(timestampSeconds), "webhook-signature": `v1,${signature}` };
}

/** Why a request failed, in one line: `HTTP 503`, or the connection's error (`ECONNREFUSED`). */
function failure(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  if (error.name === "TimeoutError") return new Error("no answer in time");
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return new Error(cause?.code ?? cause?.message ?? error.message, { cause: error });
}

/** POSTs one signed body; resolves on a 2xx answer, rejects with the reason otherwise (redirects are not followed). */
export async function postWebhook(
  url: string,
  { body, secret, id, timeoutMs }: { body: string; secret: string; id: string; timeoutMs: number },
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Tally-Webhooks",
        ...signatureHeaders(secret, id, body, Math.floor(Date.now() / 1000)),
      },
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw failure(error);
  }
  await response.body?.cancel();
  if (response.status < 200 || response.status > 299) throw new Error(`HTTP ${response.status}`);
}
