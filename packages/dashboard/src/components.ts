/**
 * Web components that show a website's statistics inside the host app's own pages
 * (docs/guide/inside-your-app.md), served at `{base}/assets/components.js`:
 *
 *   <script type="module" src="/analytics/assets/components.js"></script>
 *   <tally-totals api="/analytics/api/v1" site="3"></tally-totals>
 *   <tally-chart api="/analytics/api/v1" site="3" name="visitors"></tally-chart>
 *   <tally-top api="/analytics/api/v1" site="3" name="page" limit="5"></tally-top>
 *
 * They read the API with the page's own cookies: the host app's `authenticate` hook decides
 * whose websites they may see (another account's answers 404, shown as "No data."). No
 * framework; light and dark follow `prefers-color-scheme`, or `theme="light|dark"`.
 */

import { niceMax } from "./nice-max.js";

const GRID_LINES = 4;

const STYLE = `
:host{display:block;font:14px/1.4 system-ui,sans-serif;--fg:#1f2937;--muted:#4b5563;--bg:#fff;--line:#d1d5db;--bar:#2563eb;color:var(--fg);background:var(--bg);padding:12px;border:1px solid var(--line);border-radius:8px;margin:0 0 12px}
:host([theme=dark]){--fg:#e5e7eb;--muted:#9ca3af;--bg:#111827;--line:#374151;--bar:#60a5fa}
@media (prefers-color-scheme:dark){:host(:not([theme=light])){--fg:#e5e7eb;--muted:#9ca3af;--bg:#111827;--line:#374151;--bar:#60a5fa}}
h2{font-size:14px;margin:0 0 8px}dl{display:grid;grid-template-columns:repeat(auto-fit,minmax(110px,1fr));gap:8px;margin:0}
dt{color:var(--muted);font-size:12px}dd{margin:0;font-size:20px;font-weight:600}
table{width:100%;border-collapse:collapse}th,td{text-align:left;padding:4px 0;border-bottom:1px solid var(--line)}td+td,th+th{text-align:right}
th{color:var(--muted);font-weight:500}svg{display:block;width:100%;height:120px}rect{fill:var(--bar)}p{margin:0;color:var(--muted)}
.plot{display:flex;gap:6px}.plot svg{flex:1;border-left:1px solid var(--line);border-bottom:1px solid var(--line)}
line{stroke:var(--line);stroke-dasharray:2 3;vector-effect:non-scaling-stroke}
.y{display:flex;flex-direction:column;justify-content:space-between;height:134px;margin:-7px 0;color:var(--muted);font-size:11px;line-height:14px;text-align:right}
.x{display:flex;justify-content:space-between;color:var(--muted);font-size:11px;margin-top:2px}`;

interface Row {
  value: string;
  count: number;
}

const TOTALS: ReadonlyArray<[string, string]> = [
  ["visitors", "Visitors"],
  ["visits", "Visits"],
  ["pageviews", "Pageviews"],
  ["bounce_rate", "Bounce rate %"],
  ["visit_duration", "Visit duration (s)"],
];

const dayBefore = (offset: number) => new Date(Date.now() - offset * 86_400_000).toISOString().slice(0, 10);

/** The last `days` days, today included, as the API's `from` and `to`. */
const range = (days: number) => ({ from: dayBefore(days - 1), to: dayBefore(0) });

/** Escapes text for the shadow root's HTML. */
const esc = (text: string) => text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

abstract class TallyElement extends HTMLElement {
  static observedAttributes = ["api", "site", "name", "days", "limit"];
  private readonly root = this.attachShadow({ mode: "open" });

  connectedCallback(): void {
    void this.load();
  }

  attributeChangedCallback(): void {
    if (this.isConnected) void this.load();
  }

  /** GET `{api}/stats/{site}{suffix}` with the page's cookies; null when the answer is no data (no access, no such website). */
  protected async get<T>(suffix: string, params: Record<string, string>): Promise<T | null> {
    const query = new URLSearchParams({ ...range(Number(this.getAttribute("days") ?? 30)), ...params });
    const site = encodeURIComponent(this.getAttribute("site") ?? "");
    const response = await fetch(`${this.getAttribute("api") ?? "/api/v1"}/stats/${site}${suffix}?${query}`, {
      credentials: "same-origin",
      headers: { accept: "application/json" },
    });
    if (!response.ok) return null;
    return ((await response.json()) as { data: T }).data;
  }

  protected abstract render(): Promise<string | null>;

  private async load(): Promise<void> {
    let html: string | null = null;
    try {
      html = await this.render();
    } catch {
      html = null;
    }
    this.root.innerHTML = `<style>${STYLE}</style>${html ?? '<p role="status">No data.</p>'}`;
    this.dispatchEvent(new Event("tally-rendered"));
  }
}

/** Visitors, visits, pageviews, bounce rate and visit duration of the range. */
class TallyTotals extends TallyElement {
  protected async render(): Promise<string | null> {
    const data = await this.get<Record<string, number>>("/totals", {});
    if (!data) return null;
    return `<dl>${TOTALS.map(([key, label]) => `<div><dt>${label}</dt><dd>${data[key] ?? 0}</dd></div>`).join("")}</dl>`;
  }
}

/** The top values of one statistic (`name`, default `page`): a table. */
class TallyTop extends TallyElement {
  protected async render(): Promise<string | null> {
    const name = this.getAttribute("name") ?? "page";
    const rows = await this.get<Row[]>("", { name, per_page: "10" });
    if (!rows) return null;
    const shown = rows.slice(0, Number(this.getAttribute("limit") ?? 10));
    const body = shown.map((row) => `<tr><td>${esc(row.value)}</td><td>${row.count}</td></tr>`).join("");
    return `<table><caption hidden>${esc(name)}</caption><thead><tr><th scope="col">${esc(name)}</th><th scope="col">Count</th></tr></thead><tbody>${body}</tbody></table>`;
  }
}

/** One statistic by day (`name`, default `visitors`): bars over the days, their counts on the y axis. */
class TallyChart extends TallyElement {
  protected async render(): Promise<string | null> {
    const name = this.getAttribute("name") ?? "visitors";
    const days = Number(this.getAttribute("days") ?? 30);
    const answer = await this.get<Row[]>("", { name, sort_by: "value", sort: "asc", per_page: "100" });
    if (!answer) return null;
    // Every day of the range, those without a count as 0.
    const counts = new Map(answer.map((row) => [row.value, row.count]));
    const rows = Array.from({ length: days }, (_, i) => dayBefore(days - 1 - i)).map((value) => ({ value, count: counts.get(value) ?? 0 }));
    // The counts' axis: 0 and four round steps up to a top at or above the highest count (as the dashboard's chart).
    const top = niceMax(Math.max(...rows.map((row) => row.count)), GRID_LINES);
    const ticks = Array.from({ length: GRID_LINES + 1 }, (_, k) => (top / GRID_LINES) * k);
    const width = 100 / Math.max(1, rows.length);
    const grid = ticks
      .slice(1)
      .map((tick) => `<line x1="0" x2="100" y1="${100 - (tick / top) * 100}" y2="${100 - (tick / top) * 100}"></line>`)
      .join("");
    const bars = rows
      .map((row, i) => {
        const height = (row.count / top) * 100;
        return `<rect x="${i * width + width * 0.1}" y="${100 - height}" width="${width * 0.8}" height="${height}"><title>${esc(row.value)}: ${row.count}</title></rect>`;
      })
      .join("");
    const total = rows.reduce((sum, row) => sum + row.count, 0);
    // The axes: the counts beside the bars, highest first; the first, middle and last dates under them.
    const day = (value: string) =>
      new Date(`${value}T00:00:00Z`).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" });
    const dates = [0, Math.floor((rows.length - 1) / 2), rows.length - 1].map((i) => `<span>${esc(day(rows[i]!.value))}</span>`).join("");
    const counted = [...ticks]
      .reverse()
      .map((tick) => `<span>${tick.toLocaleString()}</span>`)
      .join("");
    return (
      `<div class="plot"><div class="y">${counted}</div>` +
      `<svg viewBox="0 0 100 100" preserveAspectRatio="none" role="img" aria-label="${esc(name)} by day: ${total} in all">${grid}${bars}</svg></div>` +
      `<div class="x">${dates}</div>`
    );
  }
}

for (const [tag, element] of [
  ["tally-totals", TallyTotals],
  ["tally-top", TallyTop],
  ["tally-chart", TallyChart],
] as const) {
  if (!customElements.get(tag)) customElements.define(tag, element);
}
