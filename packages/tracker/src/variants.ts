// The builds of the tracker for other tools' snippets (build.mjs: plausible.min.js served
// at /js/script.js, plausible-tagged.min.js at /js/script.tagged-events.js and the names with it, umami.min.js at /umami.js, goatcounter.min.js at /count.js; docs/moving.md, "Coming from Plausible, Umami or
// GoatCounter"). A module of its own: Tally's builds never call it, so they carry none of it.
import type { Props, Revenue, Track } from "./tracker.js";

declare const FEATURE_PLAUSIBLE: boolean;
declare const FEATURE_UMAMI: boolean;
declare const FEATURE_GOATCOUNTER: boolean;
declare const FEATURE_TAGGED: boolean;

type UmamiPayload = Record<string, unknown>;
type PlausibleOptions = { props?: Props; revenue?: Revenue; callback?: () => void };
type Foreign = Window & {
  plausible?: ((name: string, options?: PlausibleOptions) => void) & { q?: IArguments[] };
  umami?: { track(value?: string | UmamiPayload | ((payload: UmamiPayload) => UmamiPayload), props?: Props): void };
  goatcounter?: { count(vars?: { path?: string; event?: boolean }): void; no_onload?: boolean };
};

/** What the tracker sends, in its own short keys (the /collect body). */
interface TrackerHit {
  n: string | undefined;
  u: string;
  p: Props | undefined;
  h: 1 | undefined;
  e: number | undefined;
  $: Revenue | undefined;
}

/** Umami: data-host-url is where Umami runs, else beside the script; Plausible: data-api, else {base}/api/event beside {base}/js/script.js. */
export const foreignEndpoint = (script: HTMLScriptElement) =>
  // GoatCounter: data-goatcounter="https://…/count", else /count beside count.js.
  FEATURE_GOATCOUNTER
    ? script.dataset.goatcounter || new URL("count", script.src).href
    : FEATURE_UMAMI
      ? (script.dataset.hostUrl ? script.dataset.hostUrl.replace(/\/$/, "") + "/" : script.src.replace(/[^/]*$/, "")) + "api/send"
      : script.dataset.api || new URL("../api/event", script.src).href;

/** Plausible's script names its features in its file name: script.hash.outbound-links.js, script.manual.js… */
export const named = (script: HTMLScriptElement, feature: string) => script.src.split("/").pop()!.split(".").includes(feature);

/** No automatic pageviews nor history tracking: Umami's data-auto-track="false", Plausible's script.manual.js. */
export const manual = (script: HTMLScriptElement) =>
  FEATURE_GOATCOUNTER
    ? // data-goatcounter-settings='{"no_onload": true}', or window.goatcounter = {no_onload: true} set first.
      /"no_onload"\s*:\s*true/.test(script.dataset.goatcounterSettings || "") || !!(window as Foreign).goatcounter?.no_onload
    : FEATURE_UMAMI
      ? script.dataset.autoTrack == "false"
      : named(script, "manual");

/** The other tool's opt-outs: Umami counts only with a website id, on the hosts data-domains lists. */
export function foreignOff(script: HTMLScriptElement): boolean {
  const data = script.dataset;
  try {
    if (
      FEATURE_GOATCOUNTER
        ? localStorage.getItem("skipgc") == "t"
        : FEATURE_PLAUSIBLE
          ? localStorage.plausible_ignore == "true"
          : localStorage.getItem("umami.disabled")
    )
      return true;
  } catch {}
  return (
    FEATURE_UMAMI && (!data.websiteId || (!!data.domains && !data.domains.split(",").some((host) => host.trim() == location.hostname)))
  );
}

/** Plausible's data-include / data-exclude: comma-separated paths, `*` within a segment, `**` across. */
const matches = (patterns: string) =>
  patterns.split(",").some((pattern) =>
    RegExp(
      "^" +
        pattern
          .trim()
          .replace(/\*\*/g, ".*")
          .replace(/([^.])\*/g, "$1[^\\s/]*") +
        "/?$",
    ).test(location.pathname),
  );

const post = (endpoint: string, body: object) => {
  try {
    navigator.sendBeacon(endpoint, JSON.stringify(body));
  } catch {}
};

/** Umami's payload for the current page: what umami.track(payload => …) is given. */
const umamiPayload = (script: HTMLScriptElement, url: string): UmamiPayload => ({
  website: script.dataset.websiteId,
  hostname: location.hostname,
  url,
  referrer: document.referrer || undefined,
  title: document.title,
  screen: screen.width + "x" + screen.height,
  language: navigator.language,
});

/**
 * GoatCounter's count.js request: a beacon with the query of `/count` and no body. `p` is
 * the page's path (its query apart, as `q`) or an event's name (`e=true`, counted on this
 * page); GoatCounter has no properties and no engaged time.
 */
function countGoatCounter(endpoint: string, hit: TrackerHit): void {
  if (hit.e) return;
  const url = new URL(hit.u);
  const query = new URLSearchParams({
    p: hit.n || url.pathname,
    r: document.referrer,
    t: document.title,
    s: [screen.width, screen.height, devicePixelRatio].join(),
    q: url.search,
  });
  if (hit.n) query.set("e", "true");
  try {
    navigator.sendBeacon(endpoint + "?" + query);
  } catch {}
}

/**
 * Plausible's script.pageview-props.js: each `event-<name>` attribute of the script tag is
 * a property of every hit it sends, pageviews and events (one the call gives wins).
 */
function withScriptProps(script: HTMLScriptElement, props: Props | undefined): Props | undefined {
  if (!named(script, "pageview-props")) return props;
  const all: Props = {};
  for (const attribute of script.getAttributeNames())
    if (attribute.startsWith("event-")) all[attribute.slice(6)] = script.getAttribute(attribute)!;
  return { ...all, ...props };
}

/** A hit in the other tool's body (plus screen and language, which Tally keeps), to its endpoint. */
export function sendForeign(endpoint: string, script: HTMLScriptElement, hit: TrackerHit): void {
  const data = script.dataset;
  if (FEATURE_UMAMI) return post(endpoint, { type: "event", payload: { ...umamiPayload(script, hit.u), name: hit.n, data: hit.p } });
  if (FEATURE_GOATCOUNTER) return countGoatCounter(endpoint, hit);
  if ((data.include && !matches(data.include)) || (data.exclude && matches(data.exclude))) return;
  post(endpoint, {
    n: hit.n || (hit.e ? "engagement" : "pageview"),
    u: hit.u,
    d: data.domain || location.hostname,
    r: document.referrer || undefined,
    p: withScriptProps(script, hit.p),
    h: hit.h,
    e: hit.e,
    $: hit.$,
    s: screen.width + "x" + screen.height,
    l: navigator.language,
  });
}

/** A tagged element's event: `plausible-event-name=Signup` names it, `plausible-event-<prop>=<value>` add properties (`--` for `=`, `+` for a space). */
function taggedEvent(element: Element | null): { name?: string; props: Props } {
  const event: { name?: string; props: Props } = { props: {} };
  element?.classList?.forEach((token) => {
    const [, key, value] = /^plausible-event-(.+?)(?:=|--)(.+)/.exec(token) || [];
    if (key) key.toLowerCase() == "name" ? (event.name = value!.replace(/\+/g, " ")) : (event.props[key] = value!.replace(/\+/g, " "));
  });
  return event;
}

/** The event a click sends: of the tagged element it is on or within up to three levels of (a link's `url` added); none inside a form. */
export function taggedClick(target: EventTarget | null): { name: string; props: Props } | undefined {
  let tagged: { name?: string; props: Props } | undefined;
  let link: HTMLAnchorElement | undefined;
  for (let element = target as Element | null, level = 0; element && level < 4; element = element.parentElement, level++) {
    if (element.tagName == "FORM") return;
    if (element.tagName == "A") link ||= element as HTMLAnchorElement;
    const found = taggedEvent(element);
    if (found.name) tagged ||= found;
  }
  if (tagged) return { name: tagged.name!, props: link?.href ? { ...tagged.props, url: link.href } : tagged.props };
}

/**
 * Plausible's script.tagged-events.js (a build of its own, FEATURE_TAGGED): a click (or middle
 * click) on a tagged element sends its event (tracker.ts then counts no outbound click for it),
 * as does submitting a tagged form (or one in a tagged element).
 */
function trackTaggedEvents(track: Track): void {
  const click = (event: MouseEvent) => {
    const tagged = event.button < 2 && taggedClick(event.target);
    tagged && track(tagged.name, tagged.props);
  };
  for (const type of ["click", "auxclick"] as const) addEventListener(type, click);
  addEventListener("submit", (event) => {
    const form = event.target as Element;
    const tagged = taggedEvent(form).name ? taggedEvent(form) : taggedEvent(form.parentElement);
    tagged.name && track(tagged.name, tagged.props);
  });
}

/** window.plausible (and the calls queued before load), window.umami or window.goatcounter. */
export function defineForeignGlobal(tracker: {
  endpoint: string;
  script: HTMLScriptElement;
  track: Track;
  /** A pageview, counted even on the URL counted last, with the properties given. */
  pageview: (props?: Props) => void;
}): void {
  const win = window as Foreign;
  if (FEATURE_PLAUSIBLE) {
    // window.plausible=window.plausible||function(){(plausible.q=plausible.q||[]).push(arguments)}
    const waiting = (win.plausible || {}).q || [];
    const plausible = (name: string, options: PlausibleOptions = {}) => {
      name == "pageview" ? tracker.pageview(options.props) : tracker.track(name, options.props, options.revenue);
      options.callback && options.callback();
    };
    win.plausible = plausible;
    for (const args of waiting) plausible.apply(0, args as unknown as Parameters<typeof plausible>);
    if (FEATURE_TAGGED) trackTaggedEvents(tracker.track);
  }
  if (FEATURE_UMAMI) {
    const url = () => location.href.split("#")[0]!;
    // track(): a pageview; ("name", data): an event; (payload) or (payload => payload): that payload.
    win.umami = {
      track: (value, props) =>
        typeof value == "function"
          ? post(tracker.endpoint, { type: "event", payload: value(umamiPayload(tracker.script, url())) })
          : typeof value == "object"
            ? post(tracker.endpoint, { type: "event", payload: value })
            : value
              ? tracker.track(value, props)
              : tracker.pageview(),
    };
  }
  if (FEATURE_GOATCOUNTER) {
    // goatcounter.count({path: "Signup", event: true}) counts an event; count() a pageview.
    win.goatcounter = {
      ...win.goatcounter,
      count: (vars = {}) => (vars.event ? tracker.track(vars.path || "") : tracker.pageview()),
    };
    // GoatCounter's data-goatcounter-click="name": a click on the element is that event.
    document.addEventListener("click", (event) => {
      const target = (event.target as Element).closest?.("[data-goatcounter-click]") as HTMLElement | null | undefined;
      if (target) tracker.track(target.dataset.goatcounterClick!);
    });
  }
}
