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
 *
 * Pre-load queue (optional, put it before any tally.track call):
 * <script>window.tally=window.tally||{q:[],track:function(){tally.q.push(arguments)}}</script>
 *
 * Size matters more than style here: every byte ships to every visitor.
 * Check `node build.mjs` output after each change.
 */

import { defineForeignGlobal, foreignEndpoint, foreignOff, hashNamed, manual, sendForeign } from "./variants.js";

// Build-time flags, set by esbuild `define`; false lets the minifier drop the feature.
declare const FEATURE_SPA: boolean;
declare const FEATURE_HASH: boolean;
declare const FEATURE_OUTBOUND: boolean;
declare const FEATURE_DNT: boolean;
declare const FEATURE_QUEUE: boolean;
declare const FEATURE_ENGAGED: boolean;
// The builds for other tools' snippets (variants.ts): their attributes, endpoint, body and global.
declare const FEATURE_FOREIGN: boolean;

export type Props = Record<string, string | number | boolean>;
export type Track = (name: string, props?: Props) => void;
type Global = { track: Track; q?: IArguments[] };

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
  const hash = FEATURE_HASH && ("hash" in data || (FEATURE_FOREIGN && hashNamed(script))) ? 1 : undefined;
  let off = FEATURE_DNT && data.dnt == "true" && (nav.doNotTrack == "1" || nav.globalPrivacyControl === true);
  let last: string | undefined;
  // The app's server counted this page already (its middleware marked the response with
  // `Server-Timing: tally;desc=<mark>`): the first pageview carries the mark and only adds
  // screen size and language to that view (docs/statistics.md, "Server-side pageviews").
  let view: string | undefined;
  try {
    view = (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).serverTiming.find(
      (entry) => entry.name == "tally",
    )!.description;
  } catch {}

  try {
    // Throws in sandboxed iframes and with storage disabled.
    off ||= localStorage.tally_ignore == "true";
  } catch {}
  if (FEATURE_FOREIGN) off ||= foreignOff(script);

  // `engaged`: an engagement signal (milliseconds visible and focused), not a hit.
  const send = (name?: string, props?: Props, engaged?: number) => {
    const url = hash ? loc.href : loc.href.split("#")[0]!;
    let mark: string | undefined;
    if (!name && !(FEATURE_ENGAGED && engaged)) {
      // A pageview for the URL we just counted (popstate after a hash link, a router
      // calling both pushState and replaceState) is the same view.
      if (url == last) return;
      last = url;
      mark = view;
      view = undefined;
    }
    if (off) return;
    if (FEATURE_FOREIGN) return sendForeign(endpoint, script, { n: name, u: url, p: props, h: hash, e: engaged });
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
          e: FEATURE_ENGAGED ? engaged : undefined,
          v: mark,
        }),
      );
    } catch {}
  };

  const page = () => send();
  const track: Track = (name, props) => name && send(name, props);

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

  if (FEATURE_OUTBOUND && "outbound" in data) {
    const click = (event: MouseEvent) => {
      const target = event.target as Element;
      const link = target.closest && (target.closest("a[href]") as HTMLAnchorElement | null);
      // Primary click or middle click (auxclick also fires for the right button).
      // Never preventDefault: the beacon outlives the page.
      event.button < 2 && link && link.host && link.host != loc.host && send("Outbound Link: Click", { url: link.href });
    };
    for (const type of ["click", "auxclick"] as const) doc.addEventListener(type, click);
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
      if (engaged && event!.type > "o") (send(undefined, undefined, engaged), (engaged = since = 0));
    };
    measure();
    for (const type of ["focus", "blur", "pagehide", "visibilitychange"]) addEventListener(type, measure);
  }

  // A prerendered page counts when (if) the visitor actually sees it.
  if (!(FEATURE_FOREIGN && manual(script))) {
    (doc as Document & { prerendering?: boolean }).prerendering ? doc.addEventListener("prerenderingchange", page) : page();
  }

  const queue = FEATURE_QUEUE && (win.tally || ({} as Global)).q;
  win.tally = { track };
  if (queue) for (const args of queue) track.apply(0, args as unknown as Parameters<Track>);
  // An explicit pageview (plausible("pageview"), umami.track()) counts even on the URL counted last.
  if (FEATURE_FOREIGN) defineForeignGlobal({ endpoint, script, track, pageview: () => ((last = undefined), page()) });
} catch {}
