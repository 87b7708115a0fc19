import type { Stats, TotalFigures } from "../stats/stats.js";
import type { StatRow } from "../stats/stats-query.js";
import type { DayRange } from "../stats/count-reader.js";
import type { ReportRange } from "./report-period.js";

/** How many rows each top list shows. */
export const TOP_ROWS = 5;

/** Everything a report says about one website: the statistics API's own answers for the range. */
export interface WebsiteReport {
  id: number;
  domain: string;
  timezone: string;
  totals: TotalFigures;
  /** The same figures over the period just before (`compare=previous_period`). */
  previous: TotalFigures;
  comparison: DayRange;
  /** Pageviews per page, visits per referrer, events per name: the first TOP_ROWS of each. */
  pages: StatRow[];
  referrers: StatRow[];
  events: StatRow[];
  /** The dashboard on this range; null without a public URL. */
  dashboardUrl: string | null;
  /** Stops this website's reports; null without a public URL. */
  unsubscribeUrl: string | null;
}

export interface ReportedWebsite {
  id: number;
  domain: string;
  timezone: string;
}

/** Reads one website's figures for the range through the statistics API (its reader thread for a SQLite file). */
export async function gatherWebsite(
  stats: Pick<Stats, "totalsWebsite" | "queryWebsite">,
  website: ReportedWebsite,
  range: ReportRange,
  links: { dashboardUrl: string | null; unsubscribeUrl: string | null },
): Promise<WebsiteReport> {
  const span = { from: range.from, to: range.to };
  const top = async (name: string) => (await stats.queryWebsite(website.id, { name, ...span, per_page: "10" })).data.slice(0, TOP_ROWS);
  const [totals, pages, referrers, events] = await Promise.all([
    stats.totalsWebsite(website.id, { ...span, compare: "previous_period" }),
    top("page"),
    top("referrer"),
    top("event"),
  ]);
  if (!totals.previous || !totals.comparison) throw new Error("the totals call answered without its comparison");
  return { ...website, totals: totals.data, previous: totals.previous, comparison: totals.comparison, pages, referrers, events, ...links };
}
