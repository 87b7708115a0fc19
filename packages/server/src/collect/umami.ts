import { ValidationError } from "@tally-analytics/core";
import * as z from "zod";
import { JSON_CONTENT_TYPE, NOSNIFF } from "../http/json-response.js";
import type { HitFields } from "./collect.js";
import type { ForeignTracker } from "./foreign-hits.js";

// Umami's collection endpoint (`POST /api/send`): what its script and @umami/node send.

const text = z.string().nullish();

export const umamiSendBody = z
  .object({
    type: z
      .enum(["event", "identify"])
      .meta({ description: "`event` (a pageview, or a custom event with `name`); `identify` is accepted and not counted." }),
    payload: z.object({
      website: z.string().min(1).max(253).meta({
        description: "The Umami website id: the Tally website with it among its `aliases`, else the one of `hostname`.",
        example: "b59e9c65-ae32-47f1-8400-119fcf4861c4",
      }),
      hostname: text.meta({
        description: "The page's host: the Tally website's domain (when no website has `website` as an alias).",
        example: "example.com",
      }),
      url: text.meta({
        description: "The page: a path (with its query) on `hostname`, or a full URL.",
        example: "/pricing?utm_source=news",
      }),
      referrer: text.meta({ description: "The referrer." }),
      title: text.meta({ description: "Accepted, not kept." }),
      screen: text.meta({ description: "`WxH`.", example: "1920x1080" }),
      language: text.meta({ example: "en-US" }),
      name: text.meta({ description: "A custom event's name; absent for a pageview.", example: "Signup" }),
      data: z
        .record(z.string(), z.unknown())
        .nullish()
        .meta({ description: "Event data: strings, numbers and booleans are kept as properties.", example: { plan: "pro" } }),
    }),
  })
  .meta({ id: "UmamiSend" });

type UmamiSend = z.infer<typeof umamiSendBody>;

/** Umami's payload as Tally's hit: for the website with the website id as an alias, else the one of `hostname` (or of a full `url`'s host). */
export function umamiHits({ type, payload }: UmamiSend): HitFields[] {
  if (type === "identify") return [];
  let url: URL;
  try {
    url = new URL(payload.url ?? "/", `https://${payload.hostname ?? payload.website}`);
  } catch {
    throw ValidationError.field("payload.url", "The url is not a path or a URL.");
  }
  const props: Record<string, string | number | boolean> = {};
  for (const [key, value] of Object.entries(payload.data ?? {})) {
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") props[key] = value;
  }
  const hit: HitFields = {
    url: url.href,
    referrer: payload.referrer,
    screen: payload.screen,
    language: payload.language,
    event: payload.name,
    props: payload.name ? props : null,
  };
  return [
    { ...hit, website: payload.website },
    { ...hit, website: payload.hostname },
  ];
}

const json = (status: number, body: object, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { ...UMAMI_CORS_HEADERS, ...headers, ...NOSNIFF, "content-type": JSON_CONTENT_TYPE },
  });

/** Umami's script sends JSON and its cache token: a preflight, answered for any origin. */
export const UMAMI_CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "Content-Type, x-umami-cache",
  "access-control-expose-headers": "X-Tally-Dropped",
  "access-control-max-age": "86400",
} as const;

/** Umami's answers: `{"ok": true}`, `{"beep": "boop"}` for a bot, errors as `{"error": {message, code, status}}`. */
export const umamiTracker: ForeignTracker<UmamiSend> = {
  schema: umamiSendBody,
  hits: umamiHits,
  alternatives: true,
  counted: (dropped) =>
    dropped === null
      ? json(200, { ok: true })
      : json(200, dropped === "bot" ? { beep: "boop" } : { ok: true }, { "x-tally-dropped": dropped }),
  failed: (status, errors, headers) => {
    // Umami answers an unknown website with a 400.
    const code = status === 404 ? 400 : status;
    const message =
      status === 404
        ? "Website not found."
        : Object.entries(errors)
            .map(([field, messages]) => `${field}: ${messages.join(" ")}`)
            .join("; ");
    return json(code, { error: { message, code: code === 400 ? "bad-request" : "error", status: code } }, headers);
  },
};
