import * as z from "zod";
import { HttpError, MESSAGES } from "../http/errors.js";
import { defineRoute, type Route, type RouteAnswer } from "../http/route.js";
import { COLLECT_BODY_LIMIT, CORS_HEADERS } from "./collect.js";
import { scriptAnswers } from "./collect-routes.js";
import { foreignHitHandler } from "./foreign-hits.js";
import { goatCounterQuery, goatCounterTracker } from "./goatcounter.js";
import { plausibleEventBody, plausibleTracker } from "./plausible.js";
import { FOREIGN_TRACKERS, trackerScriptResponse } from "./script.js";
import { UMAMI_CORS_HEADERS, umamiSendBody, umamiTracker } from "./umami.js";

// Other tools' endpoints and script paths, so their snippets and clients work unchanged
// (docs/moving.md, "Coming from Plausible, Umami or GoatCounter").

const dropped = { "X-Tally-Dropped": { description: "Why the hit was not counted (`bot`, `excluded-ip`, …), as on `/collect`." } };

const plausibleErrors = z.object({ errors: z.record(z.string(), z.array(z.string())) }).meta({ id: "PlausibleError" });
const umamiError = z.object({ error: z.object({ message: z.string(), code: z.string(), status: z.int() }) }).meta({ id: "UmamiError" });

const errorsOf = (schema: z.ZodType, statuses: readonly number[]): Record<number, RouteAnswer> =>
  Object.fromEntries(
    statuses.map((status) => [status, { description: "Not counted: the body says why, in the other tool's shape.", schema }]),
  );

/** Plausible's script file names: `script.js`, and its extensions (`script.hash.outbound-links.js`…). */
const PLAUSIBLE_SCRIPT = /^script(\.[a-z-]+)*\.js$/;

const preflight = (path: string, headers: Readonly<Record<string, string>>): Route =>
  defineRoute({
    method: "OPTIONS",
    path,
    auth: "public",
    headers,
    summary: `CORS preflight for ${path}`,
    tag: "Collection",
    responses: { 204: { description: "Any origin may post hits." } },
    handle: async () => new Response(null, { status: 204 }),
  });

/** GoatCounter's `/count`: its pixel GETs it, its count.js POSTs a beacon to it. */
function countRoute(method: "GET" | "POST", text: { summary: string; description: string }): Route {
  return defineRoute({
    method,
    path: "/count",
    auth: "public",
    query: goatCounterQuery,
    ...text,
    tag: "Collection",
    responses: {
      200: { description: "A 1×1 GIF: counted, or dropped on purpose.", media: { "image/gif": "A transparent pixel." }, headers: dropped },
      400: "error",
      404: "error",
      503: "error",
    },
    handle: foreignHitHandler(goatCounterTracker),
  });
}

export const foreignRoutes: readonly Route[] = [
  defineRoute({
    method: "POST",
    path: "/api/event",
    auth: "public",
    headers: CORS_HEADERS,
    ownBody: { schema: plausibleEventBody, mediaTypes: ["text/plain", "application/json"] },
    summary: "Record a pageview or an event sent the way Plausible's script and Events API send them",
    tag: "Collection",
    description: `Plausible's \`POST /api/event\` body, at most ${COLLECT_BODY_LIMIT / 1024} KiB, counted like \`/collect\`: the website is \`d\` (each of a comma-separated list Tally knows), else the host of \`u\`.`,
    responses: {
      202: {
        description: "Counted, or dropped on purpose (then `X-Plausible-Dropped: 1`).",
        media: { "text/plain": "`ok`" },
        headers: dropped,
      },
      ...errorsOf(plausibleErrors, [400, 404, 413, 503]),
    },
    handle: foreignHitHandler(plausibleTracker),
  }),
  preflight("/api/event", CORS_HEADERS),
  defineRoute({
    method: "GET",
    path: "/js/{file}",
    auth: "public",
    params: z.object({
      file: z.string().meta({
        description:
          "`script.js` or Plausible's extension names, combined in any order (`script.hash.js`, `script.file-downloads.outbound-links.js`…); names Tally does not carry are ignored.",
        example: "script.js",
      }),
    }),
    summary: "Tally's tracker for Plausible's snippet",
    tag: "Collection",
    description:
      '`<script defer data-domain="example.com" src="{base}/js/script.js"></script>`: reads `data-domain`, `data-api`, `data-include`, `data-exclude`, the `hash`, `manual`, `outbound-links`, `file-downloads` (and `file-types`) and `tagged-events` extension names (elements with the classes `plausible-event-name=<event>` and `plausible-event-<prop>=<value>` send that event when clicked, forms when submitted), and offers `plausible(name, {props, callback})` with its queue; posts to `{base}/api/event`.',
    responses: { ...scriptAnswers, 404: "error" },
    async handle({ request, params }) {
      if (!PLAUSIBLE_SCRIPT.test(params.file ?? "")) throw new HttpError(404, MESSAGES.notFound);
      const tagged = params.file!.split(".").includes("tagged-events");
      return trackerScriptResponse(request, tagged ? FOREIGN_TRACKERS.plausibleTagged : FOREIGN_TRACKERS.plausible);
    },
  }),
  defineRoute({
    method: "POST",
    path: "/api/send",
    auth: "public",
    headers: UMAMI_CORS_HEADERS,
    ownBody: { schema: umamiSendBody, mediaTypes: ["application/json", "text/plain"] },
    summary: "Record a pageview or an event sent the way Umami's script and @umami/node send them",
    tag: "Collection",
    description: `Umami's \`POST /api/send\` body, at most ${COLLECT_BODY_LIMIT / 1024} KiB, counted like \`/collect\`; the website is the one with \`payload.website\` among its \`aliases\`, else the one of \`payload.hostname\`.`,
    responses: {
      200: {
        description: 'Counted (`{"ok":true}`), or dropped on purpose (a bot: `{"beep":"boop"}`, as Umami answers).',
        schema: z.union([z.object({ ok: z.literal(true) }), z.object({ beep: z.literal("boop") })]),
        headers: dropped,
      },
      ...errorsOf(umamiError, [400, 413, 503]),
    },
    handle: foreignHitHandler(umamiTracker),
  }),
  preflight("/api/send", UMAMI_CORS_HEADERS),
  defineRoute({
    method: "GET",
    path: "/umami.js",
    auth: "public",
    summary: "Tally's tracker for Umami's snippet",
    tag: "Collection",
    description:
      '`<script defer src="{base}/umami.js" data-website-id="…"></script>` (Umami\'s is `/script.js`, which is Tally\'s own): reads `data-website-id`, `data-host-url`, `data-domains`, `data-auto-track`, and offers `umami.track(…)`; posts to `{base}/api/send`.',
    responses: scriptAnswers,
    handle: ({ request }) => trackerScriptResponse(request, FOREIGN_TRACKERS.umami),
  }),
  defineRoute({
    method: "GET",
    path: "/count.js",
    auth: "public",
    summary: "Tally's tracker for GoatCounter's snippet",
    tag: "Collection",
    description:
      '`<script data-goatcounter="{base}/count" async src="{base}/count.js"></script>`: counts the page through `{base}/count` (a beacon), reads `data-goatcounter-settings` (`no_onload`), `localStorage.skipgc`, `data-goatcounter-click`, and offers `goatcounter.count({path, event})`.',
    responses: scriptAnswers,
    handle: ({ request }) => trackerScriptResponse(request, FOREIGN_TRACKERS.goatcounter),
  }),
  countRoute("GET", {
    summary: "GoatCounter's pixel: count a pageview or an event",
    description:
      "`<img src=\"{base}/count?p=/pricing\">`, as GoatCounter's `/count`: counted like `/collect` (bots, excluded addresses). The website is the host of the request's `Referer` (the page showing the pixel).",
  }),
  countRoute("POST", {
    summary: "GoatCounter's count.js: count a pageview or an event (its beacon)",
    description: "What count.js sends with `navigator.sendBeacon`: the same query as `GET /count`, no body.",
  }),
];
