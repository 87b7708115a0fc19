import type { Kysely } from "kysely";
import type { Database } from "../storage/schema.js";
import { countSignals, pageTotalsOn, signalsByDay, type EngagementRow, type PageEngagementTotals } from "./engagement-rows.js";
import { countDayRows, dataRange, dayRows, type DayRow, type ExportRange } from "./rollup-rows.js";
import { pageFiguresOn, visitFiguresOn, type VisitColumn, type VisitFigures } from "./visit-figures.js";

/**
 * Where an export reads one website's figures: the database's rollups, visits and signals,
 * or, with ClickHouse configured, ClickHouse's hits (backends/clickhouse/export-source.ts).
 */
export interface ExportSource {
  /** One statistic's day-level rows in `range`, by day and value. */
  dayRows(name: string, range: ExportRange): AsyncIterable<DayRow>;
  /** How many day-level rows of these statistics the range holds (for progress). */
  countDayRows(names: readonly string[], range: ExportRange): Promise<number>;
  /** The first and last day with visitors or pageviews; null when the website has none. */
  dataRange(): Promise<ExportRange | null>;
  /** Per value of a visit column, the visits started on a local day; empty where they are not kept. */
  visitFiguresOn(column: VisitColumn, day: string): Promise<Map<string, VisitFigures>>;
  /** Per page, the visitor-days and visits with a pageview of it on a local day; empty where they are not kept. */
  pageFiguresOn(day: string): Promise<Map<string, VisitFigures>>;
  /** Per page, a local day's engagement totals (Plausible's columns). */
  pageTotalsOn(day: string): Promise<Map<string, PageEngagementTotals>>;
  /** How many engagement signals `range` holds: 0 leaves `engagement.csv` out. */
  countSignals(range: ExportRange): Promise<number>;
  signalsByDay(range: ExportRange): AsyncIterable<{ day: string; signals: EngagementRow[] }>;
}

/** The database's rollups, visits and engagement signals of a website. */
export function databaseExportSource(db: Kysely<Database>, websiteId: number): ExportSource {
  return {
    dayRows: (name, range) => dayRows(db, websiteId, name, range),
    countDayRows: (names, range) => countDayRows(db, websiteId, names, range),
    dataRange: () => dataRange(db, websiteId),
    visitFiguresOn: (column, day) => visitFiguresOn(db, websiteId, column, day),
    pageFiguresOn: (day) => pageFiguresOn(db, websiteId, day),
    pageTotalsOn: (day) => pageTotalsOn(db, websiteId, day),
    countSignals: (range) => countSignals(db, websiteId, range),
    signalsByDay: (range) => signalsByDay(db, websiteId, range),
  };
}
