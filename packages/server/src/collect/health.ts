import type { Tally } from "@tally-analytics/core";
import * as z from "zod";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import { defineRoute } from "../http/route.js";

const healthAnswer = z
  .object({
    status: z.enum(["ok", "unavailable"]).meta({ description: "`ok` while the store takes writes." }),
    buffered: z.number().int().meta({ description: "Hits accepted and not yet written." }),
    last_write: z.string().nullable().meta({ description: "When a write last worked (ISO 8601), null before the first." }),
    reason: z.string().optional().meta({ description: "Why writes fail (503 only)." }),
  })
  .meta({ id: "Health" });

/** A header value says only printable ASCII: a path or a driver's message may hold anything. */
const headerSafe = (text: string) => text.replace(/[^\x20-\x7e]/g, "?").replace(/["\\]/g, "'");

/** `Warning` on a statistic answered while the store refuses writes: it is what is stored, without the hits still waiting. */
export async function warnIfUnwritten(tally: Tally, response: Response): Promise<void> {
  const health = await tally.health({ probe: false });
  if (health.status === "ok" || health.buffered === 0) return;
  response.headers.set(
    "warning",
    `199 tally "${health.buffered} recent hits are not counted yet: ${headerSafe(health.reason ?? "writes fail")}"`,
  );
}

/** `GET /health`: for load balancers and uptime checks; no key, no data. */
export const healthRoute = defineRoute({
  method: "GET",
  path: "/health",
  auth: "public",
  summary: "Whether Tally can write its store",
  tag: "Health",
  description:
    "200 while the store takes writes, 503 with the reason while it does not (a database that cannot be reached, a full disk, a deleted file). " +
    "An idle store is tried with a one-row write at most every 10 s. No key, no statistics.",
  responses: {
    200: { description: "Writes work.", schema: healthAnswer },
    503: {
      description: "Writes fail now; hits are kept in memory meanwhile (and `/collect` answers 503 once the buffer is full).",
      schema: healthAnswer,
    },
  },
  async handle({ tally }) {
    const health = await tally.health();
    const ok = health.status === "ok";
    // Not the API's envelope: `status` says ok or unavailable in words, as health checks expect.
    const body: z.input<typeof healthAnswer> = {
      status: ok ? "ok" : "unavailable",
      buffered: health.buffered,
      last_write: health.lastWrite?.toISOString() ?? null,
      ...(ok ? {} : { reason: health.reason ?? "writes fail" }),
    };
    const headers: Record<string, string> = {
      "content-type": JSON_CONTENT_TYPE,
      "cache-control": "no-store",
      ...NOSNIFF,
      ...(ok ? {} : { "retry-after": "5" }),
    };
    return new Response(JSON.stringify(body), { status: ok ? 200 : 503, headers });
  },
});
