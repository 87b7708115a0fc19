import type { StatRow } from "../stats/stats-query.js";
import type { WebsiteReport } from "./report-data.js";
import { formatNumber, METRICS, metricLine, periodNoun, rangeLabel } from "./report-format.js";
import type { ReportRange } from "./report-period.js";

/** What both renderings of a report are made from. */
export interface ReportContent {
  subject: string;
  range: ReportRange;
  websites: WebsiteReport[];
  /** Stops every report of this e-mail; null without a public URL. */
  unsubscribeUrl: string | null;
}

export const TOP_LISTS = [
  { title: "Top pages", unit: "pageviews", rows: (site: WebsiteReport) => site.pages },
  { title: "Top referrers", unit: "visits", rows: (site: WebsiteReport) => site.referrers },
  { title: "Top events", unit: "events", rows: (site: WebsiteReport) => site.events },
] as const;

function topList(title: string, rows: readonly StatRow[]): string[] {
  if (rows.length === 0) return [title, "  none"];
  const width = Math.max(...rows.map((row) => formatNumber(row.count).length));
  return [title, ...rows.map((row) => `  ${formatNumber(row.count).padStart(width)}  ${row.value}`)];
}

function websiteText(site: WebsiteReport): string[] {
  const lines = METRICS.map((metric) => metricLine(metric, site.totals, site.previous));
  const labelWidth = Math.max(...lines.map((line) => line.label.length));
  const valueWidth = Math.max(...lines.map((line) => line.value.length));
  return [
    site.domain,
    "=".repeat(site.domain.length),
    `Time zone: ${site.timezone}`,
    "",
    ...lines.map(
      (line) => `${line.label.padEnd(labelWidth)}  ${line.value.padStart(valueWidth)}  ${line.change.text} from ${line.previous}`,
    ),
    ...TOP_LISTS.flatMap((list) => ["", ...topList(`${list.title} (${list.unit})`, list.rows(site))]),
    ...(site.dashboardUrl ? ["", `Dashboard: ${site.dashboardUrl}`] : []),
    ...(site.unsubscribeUrl ? [`Stop reports for ${site.domain}: ${site.unsubscribeUrl}`] : []),
  ];
}

/** The plain-text part: what `tally reports send --dry-run` prints. */
export function renderText(content: ReportContent): string {
  const { range, websites } = content;
  const comparison = websites[0]?.comparison;
  const lines = [
    content.subject,
    "",
    `${rangeLabel(range)} (${range.from} to ${range.to}, each website's own time zone)${comparison ? `, compared with ${rangeLabel(comparison)}` : ""}.`,
    ...websites.flatMap((site) => ["", "", ...websiteText(site)]),
    "",
    "--",
    `You get this ${periodNoun(range)}ly report because e-mail reports are on for these websites in Tally.`,
    content.unsubscribeUrl
      ? `Unsubscribe from all of them: ${content.unsubscribeUrl}`
      : "To stop them, set email to 0 on each website (API or dashboard), or remove the account's address.",
  ];
  return `${lines.join("\n")}\n`;
}
