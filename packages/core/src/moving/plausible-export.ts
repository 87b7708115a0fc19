import { ARRIVAL_COLUMNS } from "../model/dimensions.js";
import type { WebsiteRow } from "../websites/websites.js";
import type { ExportSource } from "./export-source.js";
import { toPlausibleName } from "./names.js";
import { byDay, daySeries, type DayRow, type ExportRange } from "./rollup-rows.js";
import type { VisitColumn, VisitFigures } from "./visit-figures.js";
import type { OutputFile } from "./zip-csv.js";

/**
 * The files Plausible's CSV import takes (the layout of Plausible's own export:
 * lib/plausible/exports.ex). The counts Tally's statistics hold come from the rollups
 * (whole history, exactly what `tally import` reads back); the other figures of a
 * breakdown (a page's visitors, a browser's visits, durations, bounces…) from the visits
 * store for the days it still holds (`retention_days`). Older days get the nearest count
 * Tally has (a page's visitors and visits are its pageviews, a referrer's visitors its
 * visits, a browser's visits its visitors) and 0 for durations, bounces and pageviews. A
 * page's scroll depth and time on page totals come from the engagement signals of its day.
 */
const VISITORS = ["visitors", "pageviews", "bounces", "visits", "visit_duration"] as const;
const SOURCE_HEADER = [
  "date",
  "source",
  ...ARRIVAL_COLUMNS.map(({ column }) => column),
  "pageviews",
  "visitors",
  "visits",
  "visit_duration",
  "bounces",
];
const NAMED_SOURCE = { statistic: "source", column: "source" } as const;
const SESSION_COLUMNS = ["visitors", "visits", "visit_duration", "bounces", "pageviews"];
/** A page's engagement columns: from the signals of its day (engagement-rows.ts), 0 where the store no longer holds them. */
const PAGES_HEADER = [
  "date",
  "hostname",
  "page",
  "visits",
  "visitors",
  "pageviews",
  "total_scroll_depth",
  "total_scroll_depth_visits",
  "total_time_on_page",
  "total_time_on_page_visits",
];

export const PLAUSIBLE_NAMES = [
  ...VISITORS,
  "page",
  "hostname",
  "landing_page",
  "exit_page",
  ...ARRIVAL_COLUMNS.map(({ statistic }) => statistic),
  NAMED_SOURCE.statistic,
  "event",
  "country",
  "region",
  "device",
  "browser",
  "os",
];

type Line = readonly (string | number)[];
type Figures = (day: string) => Promise<Map<string, VisitFigures>>;

export function plausibleFiles(source: ExportSource, website: WebsiteRow, range: ExportRange): OutputFile[] {
  const dayRows = (name: string, range: ExportRange) => source.dayRows(name, range);
  const compact = (day: string) => day.replace(/-/g, "");
  const file = (table: string, header: readonly string[], rows: () => AsyncIterable<Line>): OutputFile => ({
    name: `imported_${table}_${compact(range.from)}_${compact(range.to)}.csv`,
    header,
    rows,
  });

  /** A rollup's rows, each with what the store knows of its day and value. */
  async function* completed(
    name: string,
    figuresOn: Figures,
    line: (row: DayRow, figures: VisitFigures | undefined) => Line,
  ): AsyncGenerator<Line> {
    for await (const { day, rows } of byDay(dayRows(name, range))) {
      const figures = await figuresOn(day);
      for (const row of rows) yield line(row, figures.get(row.value));
    }
  }
  const visitsBy =
    (column: VisitColumn): Figures =>
    (day) =>
      source.visitFiguresOn(column, day);

  /** A breakdown by a visitor dimension: visitors from the rollups, the visits' figures from the store. */
  const visitorBreakdown = (table: string, name: "browser" | "os" | "device", columns: readonly string[]) =>
    file(table, ["date", ...columns, ...SESSION_COLUMNS], () =>
      completed(name, visitsBy(name), (row, f) => [
        row.day,
        toPlausibleName(name, row.value),
        ...columns.slice(1).map(() => ""),
        row.count,
        f?.visits ?? row.count,
        f?.duration ?? 0,
        f?.bounces ?? 0,
        f?.pageviews ?? 0,
      ]),
    );

  return [
    file("visitors", ["date", ...VISITORS], async function* () {
      for (const [day, counts] of await daySeries(dayRows, VISITORS, range)) yield [day, ...VISITORS.map((name) => counts.get(name) ?? 0)];
    }),
    file("pages", PAGES_HEADER, async function* () {
      // A website that counts its subdomains: pages with the host empty, then hosts with the page
      // empty (Tally counts them apart, as the sources' fields); else every page on the domain.
      const hostsApart = Number(website.include_subdomains) === 1;
      for await (const { day, rows } of byDay(dayRows("page", range))) {
        const [figures, engaged] = await Promise.all([source.pageFiguresOn(day), source.pageTotalsOn(day)]);
        for (const row of rows) {
          const f = figures.get(row.value);
          const e = engaged.get(row.value);
          yield [
            row.day,
            hostsApart ? "" : website.domain,
            row.value,
            f?.visits ?? row.count,
            f?.visitors ?? row.count,
            row.count,
            e?.totalScrollDepth ?? 0,
            e?.scrollDepthVisits ?? 0,
            e?.totalTimeOnPage ?? 0,
            e?.timeOnPageVisits ?? 0,
          ];
        }
      }
      if (hostsApart)
        yield* completed(
          "hostname",
          async () => new Map(),
          (row) => [row.day, row.value, "", row.count, row.count, row.count, 0, 0, 0, 0],
        );
    }),
    file("entry_pages", ["date", "entry_page", "visitors", "entrances", "visit_duration", "bounces", "pageviews"], () =>
      completed("landing_page", visitsBy("entry_page"), (row, f) => [
        row.day,
        row.value,
        f?.visitors ?? row.count,
        row.count,
        f?.duration ?? 0,
        f?.bounces ?? 0,
        f?.pageviews ?? 0,
      ]),
    ),
    file("exit_pages", ["date", "exit_page", "visitors", "visit_duration", "exits", "bounces", "pageviews"], () =>
      completed("exit_page", visitsBy("exit_page"), (row, f) => [
        row.day,
        row.value,
        f?.visitors ?? row.count,
        f?.duration ?? 0,
        row.count,
        f?.bounces ?? 0,
        f?.pageviews ?? 0,
      ]),
    ),
    file("sources", SOURCE_HEADER, async function* () {
      // One row per value of each field, the others empty: Tally counts them apart. Plausible's `source` is the named source.
      for (const { statistic, column } of [...ARRIVAL_COLUMNS, NAMED_SOURCE]) {
        const at = SOURCE_HEADER.indexOf(column);
        yield* completed(statistic, visitsBy(column), (row, f) => {
          const line: (string | number)[] = [
            row.day,
            "",
            ...ARRIVAL_COLUMNS.map(() => ""),
            f?.pageviews ?? 0,
            f?.visitors ?? row.count,
            row.count,
            f?.duration ?? 0,
            f?.bounces ?? 0,
          ];
          line[at] = row.value;
          return line;
        });
      }
    }),
    file("custom_events", ["date", "name", "link_url", "path", "visitors", "events"], async function* () {
      for await (const { day, rows } of byDay(dayRows("event", range))) {
        const visitors = new Map<string, number>();
        for await (const row of dayRows("event_visitors", { from: day, to: day })) visitors.set(row.value, row.count);
        for (const row of rows) yield [day, row.value, "", "", visitors.get(row.value) ?? 0, row.count];
      }
    }),
    file("locations", ["date", "country", "region", "city", ...SESSION_COLUMNS], async function* () {
      // Countries, then regions with the country empty: Tally counts them apart (as the sources' fields).
      // A region the ISO list did not name (`NL:North Holland`) has no code for Plausible's column.
      for (const name of ["country", "region"] as const) {
        const lines = completed(name, visitsBy(name), (row, f) => [
          row.day,
          name === "country" ? (row.value.split(":", 1)[0] ?? "") : "",
          name === "region" ? (row.value.split(":", 1)[0] ?? "") : "",
          0,
          row.count,
          f?.visits ?? row.count,
          f?.duration ?? 0,
          f?.bounces ?? 0,
          f?.pageviews ?? 0,
        ]);
        for await (const line of lines) if (name === "country" || String(line[2]).includes("-")) yield line;
      }
    }),
    visitorBreakdown("devices", "device", ["device"]),
    visitorBreakdown("browsers", "browser", ["browser", "browser_version"]),
    visitorBreakdown("operating_systems", "os", ["operating_system", "operating_system_version"]),
  ];
}
