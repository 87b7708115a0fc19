import { escapeHtml, htmlDocument } from "../shared/html.js";
import type { StatRow } from "../stats/stats-query.js";
import type { WebsiteReport } from "./report-data.js";
import { formatNumber, METRICS, metricLine, periodAdjective, periodNoun, rangeLabel, type Change } from "./report-format.js";
import { TOP_LISTS, type ReportContent } from "./report-text.js";

// Mail clients drop <style> blocks, external sheets and images unpredictably: tables for
// layout, every style inline, no image at all, explicit colours on every surface.
const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";
const COLORS = {
  page: "#f3f4f6",
  card: "#ffffff",
  border: "#e5e7eb",
  text: "#111827",
  muted: "#6b7280",
  good: "#047857",
  bad: "#b91c1c",
  accent: "#4f46e5",
};

const table = (style: string, rows: string) =>
  `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;${style}">${rows}</table>`;

const link = (href: string, text: string, style = `color:${COLORS.accent};`) =>
  `<a href="${escapeHtml(href)}" style="${style}">${escapeHtml(text)}</a>`;

function changeCell(change: Change): string {
  const color = change.good === null ? COLORS.muted : change.good ? COLORS.good : COLORS.bad;
  return `<span style="color:${color};font-weight:600;">${escapeHtml(change.text)}</span>`;
}

function metricsTable(site: WebsiteReport): string {
  const rows = METRICS.map((metric) => {
    const line = metricLine(metric, site.totals, site.previous);
    return (
      `<tr><td style="padding:7px 0;border-bottom:1px solid ${COLORS.border};color:${COLORS.muted};font-size:14px;">${escapeHtml(line.label)}</td>` +
      `<td align="right" style="padding:7px 0;border-bottom:1px solid ${COLORS.border};font-size:18px;font-weight:700;color:${COLORS.text};white-space:nowrap;">${escapeHtml(line.value)}</td>` +
      `<td align="right" style="padding:7px 0 7px 12px;border-bottom:1px solid ${COLORS.border};font-size:13px;white-space:nowrap;">${changeCell(line.change)}` +
      `<div style="color:${COLORS.muted};font-size:12px;">from ${escapeHtml(line.previous)}</div></td></tr>`
    );
  });
  return table("", rows.join(""));
}

function topTable(title: string, unit: string, rows: readonly StatRow[]): string {
  const head =
    `<tr><td style="padding:18px 0 6px;font-size:14px;font-weight:700;color:${COLORS.text};">${escapeHtml(title)}</td>` +
    `<td align="right" style="padding:18px 0 6px;font-size:12px;color:${COLORS.muted};text-transform:uppercase;letter-spacing:0.04em;">${escapeHtml(unit)}</td></tr>`;
  const body =
    rows.length === 0
      ? `<tr><td colspan="2" style="padding:6px 0;font-size:14px;color:${COLORS.muted};">None in this period</td></tr>`
      : rows
          .map(
            (row) =>
              `<tr><td style="padding:6px 12px 6px 0;border-top:1px solid ${COLORS.border};font-size:14px;color:${COLORS.text};word-break:break-all;">${escapeHtml(row.value)}</td>` +
              `<td align="right" style="padding:6px 0;border-top:1px solid ${COLORS.border};font-size:14px;color:${COLORS.text};white-space:nowrap;">${escapeHtml(formatNumber(row.count))}</td></tr>`,
          )
          .join("");
  return table("", head + body);
}

function websiteCard(site: WebsiteReport): string {
  const button = site.dashboardUrl
    ? `<p style="margin:20px 0 0;">${link(site.dashboardUrl, "Open the dashboard", `display:inline-block;padding:9px 16px;border-radius:6px;background:${COLORS.accent};color:#ffffff;text-decoration:none;font-size:14px;font-weight:600;`)}</p>`
    : "";
  const stop = site.unsubscribeUrl
    ? `<p style="margin:14px 0 0;font-size:12px;">${link(site.unsubscribeUrl, `Stop reports for ${site.domain}`, `color:${COLORS.muted};`)}</p>`
    : "";
  const inner =
    `<h2 style="margin:0;font-size:20px;color:${COLORS.text};word-break:break-all;">${escapeHtml(site.domain)}</h2>` +
    `<p style="margin:2px 0 12px;font-size:13px;color:${COLORS.muted};">Time zone ${escapeHtml(site.timezone)}</p>` +
    metricsTable(site) +
    TOP_LISTS.map((list) => topTable(list.title, list.unit, list.rows(site))).join("") +
    button +
    stop;
  return `<tr><td style="padding:0 0 16px;"><table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${COLORS.card}" style="background:${COLORS.card};border:1px solid ${COLORS.border};border-radius:8px;"><tr><td style="padding:20px 22px;${FONT}">${inner}</td></tr></table></td></tr>`;
}

/** The HTML part: one card per website, inline styles only, no remote content. */
export function renderHtml(content: ReportContent): string {
  const { range, websites } = content;
  const comparison = websites[0]?.comparison;
  const header =
    `<tr><td style="padding:0 2px 18px;${FONT}">` +
    `<p style="margin:0;font-size:13px;font-weight:600;color:${COLORS.accent};letter-spacing:0.03em;">TALLY · ${escapeHtml(periodAdjective(range).toUpperCase())} REPORT</p>` +
    `<h1 style="margin:4px 0 0;font-size:24px;color:${COLORS.text};">${escapeHtml(rangeLabel(range))}</h1>` +
    (comparison
      ? `<p style="margin:4px 0 0;font-size:13px;color:${COLORS.muted};">Changes compared with ${escapeHtml(rangeLabel(comparison))}</p>`
      : "") +
    `</td></tr>`;
  const footer =
    `<tr><td style="padding:4px 2px 0;${FONT}font-size:12px;line-height:1.5;color:${COLORS.muted};">` +
    `You get this ${periodNoun(range)}ly report because e-mail reports are on for these websites in Tally. ` +
    (content.unsubscribeUrl
      ? link(content.unsubscribeUrl, "Unsubscribe from all of them", `color:${COLORS.muted};`)
      : "To stop them, set email to 0 on each website, or remove the account's address.") +
    `</td></tr>`;
  return htmlDocument({
    title: content.subject,
    head: ['<meta name="color-scheme" content="light">', '<meta name="supported-color-schemes" content="light">'],
    bodyAttributes: ` style="margin:0;padding:0;background:${COLORS.page};"`,
    body: [
      `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="${COLORS.page}" style="background:${COLORS.page};"><tr><td align="center" style="padding:24px 12px;">`,
      `<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;">`,
      header,
      ...websites.map(websiteCard),
      footer,
      "</table>",
      "</td></tr></table>",
    ].join("\n"),
  });
}
