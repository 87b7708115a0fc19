// The tracker's extensions (build.mjs: tally.ext.min.js, served at /script.ext.js; the
// Plausible build carries the downloads one for script.file-downloads.js). Each is turned
// on per page, by data-extensions="downloads 404 forms scroll vitals" on the script tag;
// data-props='{"author":"Jane"}' gives each pageview its properties (read in tracker.ts).
// Tally's default build never calls into this module, so it carries none of it.

import { named } from "./variants.js";

declare const FEATURE_FOREIGN: boolean;

/** Plausible's file types (its file-downloads extension), as a tested regular expression. */
const FILE_TYPES = "pdf xlsx docx txt rtf csv exe key pps ppt pptx 7z pkg rar gz zip avi mov mp4 mpeg wmv midi mp3 wav wma dmg";

/** Whether a word is in a space- or comma-separated list (data-extensions). */
export const listed = (list: string | undefined, word: string) => (list || "").split(/[\s,]+/).includes(word);

/** A web page's web vitals, each key present once measured (the `w` of an engagement signal). */
export type Vitals = { lcp?: number; inp?: number; cls?: number; fcp?: number; ttfb?: number };

/** The extension build's engagement signal: engaged milliseconds, scroll depth, vitals. */
export type Signal = { e: number; d?: number | undefined; w?: Vitals | undefined };

/**
 * The page being measured: its data-extensions, deepest scroll and vitals (sent with its
 * engagement signal, then started afresh), and `leave`, which sends that signal. Module
 * state rather than the tracker's locals: unused, the default build drops it whole.
 */
export const current = { extensions: "", depth: 0, vitals: {} as Vitals, leave: () => {} };

/** Whether data-extensions turns this extension on. */
export const on = (name: string) => listed(current.extensions, name);

/** The downloads extension: data-extensions="downloads", or Plausible's script.file-downloads.js. */
export const downloadsOn = (script: HTMLScriptElement) => (FEATURE_FOREIGN ? named(script, "file-downloads") : on("downloads"));

/**
 * A link to a file (with the downloads extension on): its path ends in one of the file
 * types. data-file-types (Plausible's build: its file-types attribute), space- or
 * comma-separated, replaces the default list.
 */
export const isDownload = (script: HTMLScriptElement, link: HTMLAnchorElement) =>
  downloadsOn(script) &&
  RegExp(
    "\\.(" +
      (script.getAttribute(FEATURE_FOREIGN ? "file-types" : "data-file-types") || FILE_TYPES)
        .trim()
        .split(/[\s,]+/)
        .join("|") +
      ")$",
    "i",
  ).test(link.pathname);

/** The deepest point of the page now in view, in percent of its height (0–100, whole). */
export function scrolled(): number {
  const root = document.documentElement;
  return Math.min(100, Math.round(((scrollY + innerHeight) / Math.max(root.scrollHeight, 1)) * 100));
}

/**
 * Web vitals with PerformanceObserver, the way the web-vitals package defines them, in
 * fewer bytes (the package alone is 3.6 KB gzipped, over the extension budget): LCP is
 * the last largest-contentful-paint; FCP the first-contentful-paint; TTFB the navigation's
 * responseStart; CLS the largest session window of layout shifts not after input (gaps
 * under 1 s, windows up to 5 s); INP the longest interaction (the package takes the 98th
 * percentile past 50 interactions: a page rarely has that many). Milliseconds, rounded;
 * CLS to 4 decimals, into `current.vitals` (a new object per page).
 */
export function observeVitals(): void {
  const vitals = () => current.vitals;
  let burst = 0;
  let first = 0;
  let previous = 0;
  const round = (value: number) => Math.round(value);
  const observe = (type: string, each: (entry: PerformanceEntry & Record<string, number>) => void) => {
    try {
      new PerformanceObserver((list) => list.getEntries().forEach(each as (entry: PerformanceEntry) => void)).observe({
        type,
        buffered: true,
        durationThreshold: 16,
      } as PerformanceObserverInit);
    } catch {}
  };
  try {
    vitals().ttfb = round((performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).responseStart);
  } catch {}
  observe("largest-contentful-paint", (entry) => (vitals().lcp = round(entry.startTime)));
  observe("paint", (entry) => entry.name == "first-contentful-paint" && (vitals().fcp = round(entry.startTime)));
  observe("event", (entry) => entry.interactionId && (vitals().inp = Math.max(vitals().inp || 0, entry.duration)));
  observe("layout-shift", (entry) => {
    if (entry.hadRecentInput) return;
    const time = entry.startTime;
    // A new session window after a 1 s gap or once the window spans 5 s.
    if (time - previous > 1000 || time - first > 5000) ((burst = 0), (first = time));
    previous = time;
    burst += entry.value as number;
    vitals().cls = Math.max(vitals().cls || 0, round(burst * 1e4) / 1e4);
  });
}
