import { messageAnswer } from "../http/answers.js";
import { collect, COLLECT_BODY_LIMIT, CORS_HEADERS } from "./collect.js";
import { hitBody } from "./hit-schema.js";
import { defineRoute, type Route } from "../http/route.js";
import { EXTENSIONS_TRACKER, trackerScriptResponse } from "./script.js";

/** `/collect`'s 202: counted, or dropped on purpose (then `X-Tally-Dropped` says why). */
/** The answers of a script route (here and the other tools' builds in foreign-routes.ts). */
export const scriptAnswers = {
  200: {
    description: "The minified script.",
    media: { "text/javascript": "The tracker." },
    headers: { ETag: { description: "Send it back in `If-None-Match`.", required: true } },
  },
  304: { description: "Not modified (`If-None-Match` matched the ETag)." },
} as const;

export const hitAnswer = messageAnswer(202, "Accepted.");

/** What the tracker talks to: the hit endpoint (public, CORS open) and the script itself. */
export const collectRoutes: readonly Route[] = [
  defineRoute({
    method: "POST",
    path: "/collect",
    auth: "public",
    headers: CORS_HEADERS,
    ownBody: { schema: hitBody, mediaTypes: ["text/plain", "application/json"] },
    summary: "Record a pageview or an event",
    tag: "Collection",
    description:
      `What the tracker sends: JSON, as \`text/plain\` (no CORS preflight) or \`application/json\`, at most ${COLLECT_BODY_LIMIT / 1024} KiB. ` +
      "The website is found by the host of `u` (`www.` stripped); the client's address comes from the socket, or from proxy headers when `trustProxy` says so, and is never stored.",
    responses: {
      202: {
        description: "Counted, or dropped on purpose (a bot, referrer spam, an excluded address).",
        schema: hitAnswer,
        headers: {
          "X-Tally-Dropped": {
            description:
              "Why the hit was not counted: `bot`, `referrer-spam` (its referring host is on the spam list, under `exclude_bots`), `excluded-ip`, or `counted` (the app's server counted that view or event already: docs/statistics.md).",
          },
        },
      },
      400: "error",
      404: {
        description: "No website is registered for the page's host.",
        schema: messageAnswer(404, "No website is registered for this host."),
      },
      413: "error",
      503: "error",
    },
    handle: collect,
  }),
  defineRoute({
    method: "OPTIONS",
    path: "/collect",
    auth: "public",
    headers: CORS_HEADERS,
    summary: "CORS preflight for /collect",
    tag: "Collection",
    responses: {
      204: { description: "Any origin may post hits.", headers: { "Access-Control-Allow-Origin": { description: "`*`", required: true } } },
    },
    handle: async () => new Response(null, { status: 204 }),
  }),
  defineRoute({
    method: "GET",
    path: "/script.js",
    auth: "public",
    summary: "The tracker script",
    tag: "Collection",
    description: '`<script defer src="{base}/script.js"></script>`: it posts to the `/collect` beside its own URL (docs/tracker.md).',
    responses: scriptAnswers,
    handle: ({ request }) => trackerScriptResponse(request),
  }),
  defineRoute({
    method: "GET",
    path: "/script.ext.js",
    auth: "public",
    summary: "The tracker script with its extensions",
    tag: "Collection",
    description:
      '`<script defer src="{base}/script.ext.js" data-extensions="downloads 404 forms scroll vitals"></script>`: the tracker plus the extensions, each turned on by its word in `data-extensions`; an SPA navigation sends the page left\'s engagement signal first (docs/tracker.md, "Extensions").',
    responses: scriptAnswers,
    handle: ({ request }) => trackerScriptResponse(request, EXTENSIONS_TRACKER),
  }),
];
