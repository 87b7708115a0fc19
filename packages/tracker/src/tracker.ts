/**
 * The Tally browser tracker. Built by ../build.mjs into one minified IIFE.
 *
 * <script defer src="https://host/analytics/script.js"
 *         data-api="…" data-hash data-outbound data-dnt="true"></script>
 *
 * Posts to `collect` beside its own src unless data-api gives the full endpoint URL.
 * data-hash: hash routing; data-outbound: outbound link clicks; data-dnt="true": honour
 * Do Not Track / Global Privacy Control. localStorage.tally_ignore = "true" opts out.
 * When the page is hidden or left, the time it was visible and focused goes out as an
 * engagement signal (`e`, milliseconds; docs/statistics.md).
 * The extension build (script.ext.js) adds data-extensions="downloads 404 forms scroll
 * vitals" and the pageview's properties, data-props='{"author":"Jane"}' (extensions.ts).
 *
 * Pre-load queue (optional, put it before any tally.track call):
 * <script>window.tally=window.tally||{q:[],track:function(){tally.q.push(arguments)}}</script>
 *
 * Size matters more than style here: every byte ships to every visitor.
 * Check `node build.mjs` output after each change.
 */

import { current, downloadsOn, isDownload, observeVitals, on, scrolled, type Signal } from "./extensions.js";
import { defineForeignGlobal, foreignEndpoint, foreignOff, manual, named, sendForeign, taggedClick } from "./variants.js";

// Build-time flags, set by esbuild `define`; false lets the minifier drop the feature.
declare const FEATURE_SPA: boolean;
declare const FEATURE_HASH: boolean;
declare const FEATURE_OUTBOUND: boolean;
declare const FEATURE_DNT: boolean;
declare const FEATURE_QUEUE: boolean;
declare const FEATURE_ENGAGED: boolean;
// The builds for other tools' snippets (variants.ts): their attributes, endpoint, body and global.
declare const FEATURE_FOREIGN: boolean;
// The extension build (extensions.ts): data-extensions="downloads 404 forms scroll vitals"
// turns each on, and an SPA navigation sends the page left's engagement signal first.
declare const FEATURE_EXTENSIONS: boolean;
// File downloads: in the extension build and the Plausible one (script.file-downloads.js).
declare const FEATURE_DOWNLOADS: boolean;
declare const FEATURE_TAGGED: boolean;

export type Props = Record<string, string | number | boolean>;
/** An event's revenue: an amount and its ISO 4217 currency (the extension build and Plausible's). */
export type Revenue = { amount: number | string; currency: string };
export type Track = (name: string, props?: Props, revenue?: Revenue) => void;
type Global = { track: Track; q?: IArguments[] };
/** The event being sent's revenue, set by `track` on `send` around its call. */
type Carrier = { $?: Revenue | undefined };
const revenueOf = (send: unknown) => (send as Carrier).$;

const doc = document;
const loc = location;
const nav = navigator as Navigator & { globalPrivacyControl?: boolean };
const win = window as unknown as Window & { tally?: Global };
const script = doc.currentScript as HTMLScriptElement;

// Anything unexpected (no currentScript, a hostile sandbox) must not reach the host page.
try {
  const data = script.dataset;
  const endpoint = FEATURE_FOREIGN ? foreignEndpoint(script) : data.api || new URL("collect", script.src).href;
  // 1 (not true) because it goes into the payload as `h`.
  const hash = FEATURE_HASH && ("hash" in data || (FEATURE_FOREIGN && named(script, "hash"))) ? 1 : undefined;
  let off = FEATURE_DNT && data.dnt == "true" && ((nav.doNotTrack as unknown) == 1 || nav.globalPrivacyControl);
  let last: string | undefined;
  // The app's server counted this page already (its middleware marked the response with
  // `Server-Timing: tally;desc=<mark>`): the first pageview carries the mark and only adds
  // screen size and language to that view (docs/statistics.md, "Server-side pageviews").
  // (serverTiming is missing before Safari 16.4.)
  let view = (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming | undefined)?.serverTiming?.find(
    (entry) => entry.name == "tally",
  )?.description;

  try {
    // Throws in sandboxed iframes and with storage disabled.
    off ||= localStorage.tally_ignore == "true";
  } catch {}
  if (FEATURE_FOREIGN) off ||= foreignOff(script);

  if (FEATURE_EXTENSIONS) current.extensions = data.extensions || "";

  // `engaged`: an engagement signal (milliseconds visible and focused), not a hit. The
  // extension build gives the whole signal instead, `{e, d, w}` (scroll depth, vitals).
  const send = (name?: string, props?: Props, engaged?: number | Signal) => {
    let url = hash ? loc.href : loc.href.split("#")[0]!;
    let mark: string | undefined;
    if (!name && !(FEATURE_ENGAGED && engaged)) {
      // A pageview for the URL we just counted (popstate after a hash link, a router
      // calling both pushState and replaceState) is the same view.
      if (url == last) return;
      // Time on page: the page left gets its own signal, before the next one is counted.
      if (FEATURE_EXTENSIONS && last) current.leave();
      last = url;
      mark = view;
      view = undefined;
      // The extension build: data-props, the pageview's properties, read at each pageview (an
      // SPA may change it). Spread, any JSON goes out as an object; none when it is no JSON.
      if (FEATURE_EXTENSIONS)
        try {
          props = { ...JSON.parse(data.props!) };
        } catch {}
    } else if (FEATURE_EXTENSIONS && engaged) url = last || url; // the page the signal is about
    if (off) return;
    if (FEATURE_FOREIGN)
      return sendForeign(endpoint, script, { n: name, u: url, p: props, h: hash, e: engaged as number | undefined, $: revenueOf(send) });
    try {
      // Transport: navigator.sendBeacon alone, the smallest option that is also robust.
      // - A string body goes out as text/plain;charset=UTF-8: CORS-safelisted, no preflight.
      // - It is a keepalive request in every evergreen browser (Firefox honours fetch
      //   keepalive only since 133), so a hit sent just before unload still arrives.
      // - It returns a boolean, never a promise: no unhandled rejection when the endpoint
      //   is down. Where beacons are disabled the call throws and lands in this catch;
      //   a fetch fallback would cost ~40 B gzipped for visitors who opted out of beacons.
      nav.sendBeacon(
        endpoint,
        JSON.stringify({
          u: url,
          r: doc.referrer || undefined,
          s: screen.width + "x" + screen.height,
          l: nav.language,
          n: name,
          p: props,
          h: hash,
          e: FEATURE_ENGAGED && !FEATURE_EXTENSIONS ? (engaged as number) : undefined,
          v: mark,
          ...(FEATURE_EXTENSIONS && { ...(engaged as Signal), $: revenueOf(send) }),
        }),
      );
    } catch {}
  };

  const page = () => send();
  const track: Track =
    FEATURE_EXTENSIONS || FEATURE_FOREIGN
      ? (name, props, revenue) => {
          // Carried on send itself: the default build, which has no revenue, declares nothing for it.
          (send as Carrier).$ = revenue;
          name && send(name, props);
          (send as Carrier).$ = undefined;
        }
      : (name, props) => name && send(name, props);

  if (FEATURE_SPA && !(FEATURE_FOREIGN && manual(script))) {
    const path = () => loc.pathname + (hash ? loc.hash : "");
    for (const method of ["pushState", "replaceState"] as const) {
      const original = history[method];
      history[method] = function (this: History) {
        const before = path();
        original.apply(this, arguments as unknown as Parameters<History["pushState"]>);
        // A pushState always counts (deduplicated by URL); replaceState also saves scroll
        // positions and router state, so it counts only when the path changes.
        (method < "r" || before != path()) && page();
      };
    }
    addEventListener("popstate", page);
    hash && addEventListener("hashchange", page);
  }

  const outbound = FEATURE_OUTBOUND && (FEATURE_FOREIGN ? "outbound" in data || named(script, "outbound-links") : "outbound" in data);
  if ((FEATURE_OUTBOUND && outbound) || (FEATURE_DOWNLOADS && downloadsOn(script))) {
    const click = (event: MouseEvent) => {
      const target = event.target as Element;
      const link = target.closest?.("a[href]") as HTMLAnchorElement | null | undefined;
      // Primary click or middle click (auxclick also fires for the right button).
      // Never preventDefault: the beacon outlives the page.
      // A tagged link's click is its tagged event only, as Plausible's.
      if (event.button < 2 && link && !(FEATURE_TAGGED && taggedClick(target))) {
        (!FEATURE_DOWNLOADS || outbound) && link.host && link.host != loc.host && send("Outbound Link: Click", { url: link.href });
        FEATURE_DOWNLOADS && isDownload(script, link) && send("File Download", { url: link.href });
      }
    };
    for (const type of ["click", "auxclick"] as const) addEventListener(type, click);
  }

  if (FEATURE_ENGAGED) {
    // Engaged time: the page visible and focused. Each focus or visibility change closes
    // the running stretch; when the page is hidden or left (visibilitychange, pagehide:
    // the last events a page reliably gets, also on phones) what has gathered since the
    // last signal is sent. No timer runs. (While hidden nothing gathers, so a
    // visibilitychange back to visible finds nothing to send.)
    let since = 0;
    let engaged = 0;
    const measure = (event?: Event) => {
      const now = Date.now();
      engaged += since && now - since;
      since = doc.hidden || !doc.hasFocus() ? 0 : now;
      // "pagehide" and "visibilitychange" sort after "o"; "focus" and "blur" before. A
      // pagehide may come before the visibilitychange: nothing runs on after a send.
      if (FEATURE_EXTENSIONS) {
        // (The first call, at start, has no event.)
        if (event && event.type > "o") {
          // The extension build: the signal carries `d` and `w`, and goes out for vitals alone.
          const scroll = on("scroll");
          if (scroll) current.depth = Math.max(current.depth, scrolled());
          const w = on("vitals") && Object.keys(current.vitals).length ? current.vitals : undefined;
          if (engaged || w) send(undefined, undefined, { e: engaged, d: scroll ? current.depth : undefined, w });
          // Vitals go out once; `d` is the page's deepest so far, in every signal of the page.
          engaged = 0;
          current.vitals = {};
          // After a pagehide nothing runs on (a visibilitychange may follow); a hidden page
          // gathers nothing already; an SPA navigation ("x") leaves for a new page, measured.
          if (event.type < "v") since = 0;
          if (event.type > "w") current.depth = 0;
        }
      } else if (engaged && event!.type > "o") (send(undefined, undefined, engaged), (engaged = since = 0));
    };
    // Time on page: an SPA navigation sends the page left's signal (type "x": sorts after "o").
    if (FEATURE_EXTENSIONS) current.leave = () => measure({ type: "x" } as Event);
    measure();
    for (const type of ["pagehide", "visibilitychange", "focus", "blur"]) addEventListener(type, measure);
  }

  if (FEATURE_EXTENSIONS && on("scroll")) addEventListener("scroll", () => (current.depth = Math.max(current.depth, scrolled())));
  if (FEATURE_EXTENSIONS && on("vitals")) observeVitals();
  // A successful submission: the browser validated the form and the page did not stop it.
  // The window's listener runs after the form's and the document's.
  if (FEATURE_EXTENSIONS && on("forms"))
    addEventListener("submit", (event) => event.defaultPrevented || send("Form: Submission", { path: loc.pathname }));

  // A prerendered page counts when (if) the visitor actually sees it.
  if (!(FEATURE_FOREIGN && manual(script))) {
    (doc as Document & { prerendering?: boolean }).prerendering ? doc.addEventListener("prerenderingchange", page) : page();
  }
  // A page that declares itself a 404: <meta name="tally-404">.
  if (FEATURE_EXTENSIONS && on("404") && doc.querySelector('meta[name="tally-404"]')) send("404", { path: loc.pathname });

  const queue = FEATURE_QUEUE && win.tally?.q;
  win.tally = { track };
  if (queue) for (const args of queue) track.apply(0, args as unknown as Parameters<Track>);
  // An explicit pageview (plausible("pageview"), umami.track()) counts even on the URL counted last.
  if (FEATURE_FOREIGN) defineForeignGlobal({ endpoint, script, track, pageview: (props) => ((last = undefined), send(undefined, props)) });
} catch {}
