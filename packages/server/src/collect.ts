import { ValidationError, type HitInput } from "@tally/core";
import * as z from "zod";
import { parseJsonObject, readText } from "./body.js";
import { proxyTrust } from "./client-ip.js";
import { HttpError } from "./errors.js";
import { json } from "./json-response.js";
import type { RequestContext } from "./route.js";

/** SPEC §6: a hit is at most 16 KiB. */
export const COLLECT_BODY_LIMIT = 16 * 1024;

/** The tracker's short keys. Lengths are checked again, with the hit's own rules, in core. */
const hitBody = z.object({
  u: z.string({ error: "u (the page URL) is required." }),
  r: z.string().nullish(),
  s: z.string().nullish(),
  l: z.string().nullish(),
  n: z.string().nullish(),
  p: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullish(),
  h: z.union([z.literal(0), z.literal(1), z.boolean()]).nullish(),
});

/** Sent on every /collect answer, errors included: any site may post hits, none may read them. */
export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "Content-Type",
  "access-control-expose-headers": "X-Tally-Dropped",
  "access-control-max-age": "86400",
} as const;

/** Whatever the Content-Type (trackers send text/plain to skip the CORS preflight), the body is JSON. */
async function readHit(request: Request): Promise<z.infer<typeof hitBody>> {
  const text = await readText(request, COLLECT_BODY_LIMIT);
  const result = hitBody.safeParse(parseJsonObject(text));
  if (!result.success) throw new HttpError(400, `Invalid hit: ${result.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ")}`);
  return result.data;
}

/** POST /collect: one pageview or event. The client's timestamp is never trusted. */
export async function collect({ tally, request, ip }: RequestContext<unknown, unknown>): Promise<Response> {
  const body = await readHit(request);
  const clientIp = proxyTrust(tally.options.trustProxy).clientIp(ip, request.headers);
  if (!clientIp) throw new HttpError(400, "The client address is unknown.");
  const hit: HitInput = {
    url: body.u,
    referrer: body.r,
    screen: body.s,
    language: body.l,
    event: body.n,
    props: body.p,
    hash: body.h === 1 || body.h === true,
    ip: clientIp,
    userAgent: request.headers.get("user-agent") ?? "",
  };
  try {
    const result = await tally.collect(hit);
    if (result.status === "dropped") return json(202, { message: `Dropped: ${result.reason}.` }, { "x-tally-dropped": result.reason });
    return json(202, { message: "Accepted." });
  } catch (error) {
    // A hit that breaks a rule is a bad body here, not a form field error.
    if (error instanceof ValidationError) throw new HttpError(400, `Invalid hit: ${Object.values(error.errors).flat().join(" ")}`);
    throw error;
  }
}
