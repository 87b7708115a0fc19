import type { PathStep } from "../model/path-steps.js";
import { stepText } from "../model/path-steps.js";
import type { AlertReader, WatchedWebsite } from "./alert-reader.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const WEEK_MS = 7 * 24 * HOUR_MS;

/** A rule as an evaluation needs it. */
export interface RuleToCheck {
  website: WatchedWebsite;
  threshold: number;
  /** A goal rule's goal; null for the other kinds. */
  goal: PathStep | null;
  /** When the rule was made (epoch ms): a website is not "silent" for longer than it has been watched. */
  createdAt: number;
}

/** The moments an evaluation covers: `now`, and for the kinds that count what happened since the last check, that span. */
export interface CheckWindow {
  now: number;
  /** `[from, to)`: conversions are counted once, in the check whose span holds them. */
  span: { from: number; to: number };
}

/** What one evaluation of a rule saw. */
export interface Observation {
  /** The condition holds (for a goal: it converted in this check's span). */
  holds: boolean;
  /** The figure the threshold was compared with. */
  value: number;
  /** A spike's figure of the same hour last week. */
  previous?: number;
  /** What happened, in one line: the e-mail's subject, the Slack text, the delivery log. */
  text: string;
}

interface AlertKind {
  /** The rule in a few words, for people (dashboard, CLI help, docs). */
  label: string;
  /** What the threshold means, its bounds, and its value when none is given (absent: required). */
  threshold: { meaning: string; min: number; max: number; whole: boolean; default?: number };
  /**
   * `level`: fires when its condition starts to hold, then not again until it has stopped holding;
   * `event`: fires at every check whose span saw it.
   */
  fires: "level" | "event";
  /** Whether the rule names a goal. */
  goal: boolean;
  observe(reader: AlertReader, rule: RuleToCheck, window: CheckWindow): Promise<Observation>;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;
const clockTime = (ms: number) => `${new Date(ms).toISOString().slice(11, 16)} UTC`;

/** Every kind of alert rule: the one list the API's choices, the checks and the texts come from. */
export const ALERT_KINDS = {
  visitors: {
    label: "visitors in the last hour at or above a number",
    threshold: { meaning: "visitors", min: 1, max: 100_000_000, whole: true },
    fires: "level",
    goal: false,
    async observe(reader, { website, threshold }, { now }) {
      const value = await reader.visitors(website, now - HOUR_MS, now);
      return {
        holds: value >= threshold,
        value,
        text: `${website.domain}: ${count(value, "visitor")} in the last hour (alert at ${threshold} or more).`,
      };
    },
  },
  spike: {
    label: "visitors in the last hour at or above a multiple of the same hour last week",
    threshold: { meaning: "times last week's visitors", min: 1.1, max: 1000, whole: false, default: 3 },
    fires: "level",
    goal: false,
    async observe(reader, { website, threshold }, { now }) {
      const [value, previous] = await Promise.all([
        reader.visitors(website, now - HOUR_MS, now),
        reader.visitors(website, now - WEEK_MS - HOUR_MS, now - WEEK_MS),
      ]);
      // A week with none counts as one: two visitors are not a spike of a silent site.
      const times = previous === 0 ? "against none" : `${Math.round((value / previous) * 10) / 10}× the ${previous}`;
      return {
        holds: value >= threshold * Math.max(previous, 1),
        value,
        previous,
        text: `${website.domain}: ${count(value, "visitor")} in the last hour, ${times} of the same hour last week (alert at ${threshold}×).`,
      };
    },
  },
  no_pageviews: {
    label: "no pageview for a number of minutes (the site or its tracker is down)",
    threshold: { meaning: "minutes", min: 5, max: 7 * 24 * 60, whole: true, default: 30 },
    fires: "level",
    goal: false,
    async observe(reader, { website, threshold, createdAt }, { now }) {
      const from = now - threshold * MINUTE_MS;
      // Not silent for longer than it has been watched.
      const silent = from >= createdAt && !(await reader.hasPageview(website, from, now));
      return { holds: silent, value: threshold, text: `${website.domain}: no pageview for ${count(threshold, "minute")}.` };
    },
  },
  goal: {
    label: "a goal converted (an event, or a pageview of matching pages)",
    threshold: { meaning: "visitors who converted since the last check", min: 1, max: 100_000_000, whole: true, default: 1 },
    fires: "event",
    goal: true,
    async observe(reader, { website, threshold, goal }, { span }) {
      const value = await reader.goalVisitors(website, goal!, span.from, span.to);
      return {
        holds: value >= threshold,
        value,
        text: `${website.domain}: goal ${stepText(goal!)} converted by ${count(value, "visitor")} (${clockTime(span.from)} to ${clockTime(span.to)}).`,
      };
    },
  },
} as const satisfies Record<string, AlertKind>;

export type AlertKindName = keyof typeof ALERT_KINDS;
export const ALERT_KIND_NAMES = Object.keys(ALERT_KINDS) as [AlertKindName, ...AlertKindName[]];
/** A kind's row, seen through what every kind has. */
export const alertKind = (name: AlertKindName): AlertKind => ALERT_KINDS[name];
