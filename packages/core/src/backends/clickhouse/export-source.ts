import { PAGEVIEW_EVENT, PROPERTY_SEPARATOR } from "../../model/dimensions.js";
import type { ExportSource } from "../../moving/export-source.js";
import type { DayRow, ExportRange } from "../../moving/rollup-rows.js";
import type { ClickhouseClient } from "./connect.js";
import { queryParams, queryRunner } from "./query.js";
import { countingOf, rowsOf } from "./reads.js";
import { HITS_TABLE } from "./schema.js";

type Row = { on_day: string; value: string; count: string | number };

/** An export's statements run as long as they need (the database's export has no time limit either): an hour at most. */
const EXPORT_TIMEOUT_MS = 3_600_000;

/** A statistic's rows by day and value over the range's hits, its visits formed when read (the rollups' rows, counted as ClickHouse counts them). */
function statementOf(name: string): string {
  if (name === "event_property") {
    // Every property of every hit, listed under its event (a pageview's under `pageview`), as the rollups list them.
    const event = `if(kind = 'pageview', '${PAGEVIEW_EVENT}', event)`;
    return (
      `SELECT toString(day) AS on_day, concat(${event}, '${PROPERTY_SEPARATOR}', property, '${PROPERTY_SEPARATOR}', props[property]) AS value, count() AS count ` +
      `FROM ${HITS_TABLE} ARRAY JOIN mapKeys(props) AS property ` +
      `WHERE website_id = {website:UInt32} AND day BETWEEN {from:Date} AND {to:Date} AND kind != 'engagement' AND props[property] != '' ` +
      `GROUP BY on_day, value ORDER BY on_day, value`
    );
  }
  const counting = countingOf({ name });
  if (!counting) throw new Error(`ClickHouse does not count the statistic ${name}`);
  const day = counting.from === "visits" ? "vday" : "day";
  return (
    `SELECT toString(${day}) AS on_day, ${counting.value} AS value, toUInt64(${counting.count}) AS count ` +
    `FROM ${rowsOf(counting, { stored: false, formed: true })}${counting.where ? ` WHERE ${counting.where}` : ""} ` +
    `GROUP BY on_day, value HAVING value != '' AND count > 0 ORDER BY on_day, value`
  );
}

/**
 * An export's figures from ClickHouse (moving/export-source.ts): each statistic's rows by day
 * and value counted from `tally_hits` in one statement over the range (its visits formed
 * when read, as a filtered statistic's are), read once per export. ClickHouse keeps no
 * visits table to give a breakdown's visits, durations and bounces per day, nor the signals
 * as rows of their own: those columns get the nearest count, as for days past the
 * database's retention, and `engagement.csv` is left out.
 */
export function clickhouseExportSource(client: ClickhouseClient, websiteId: number): ExportSource {
  const run = queryRunner(client, websiteId, EXPORT_TIMEOUT_MS);
  const read = new Map<string, Promise<DayRow[]>>();
  function rowsOfStatistic(name: string, range: ExportRange): Promise<DayRow[]> {
    const key = `${name} ${range.from} ${range.to}`;
    if (!read.has(key))
      read.set(
        key,
        run<Row>(statementOf(name), range).then((rows) =>
          rows.map((row) => ({ day: row.on_day, value: row.value, count: Number(row.count) })),
        ),
      );
    return read.get(key)!;
  }
  return {
    async *dayRows(name, range) {
      yield* await rowsOfStatistic(name, range);
    },
    async countDayRows(names, range) {
      let rows = 0;
      for (const name of names) rows += (await rowsOfStatistic(name, range)).length;
      return rows;
    },
    async dataRange() {
      const params = queryParams();
      const result = await client.query({
        query: `SELECT toString(min(day)) AS first, toString(max(day)) AS last, count() AS hits FROM ${HITS_TABLE}
          WHERE website_id = ${params.add(websiteId, "UInt32")} AND kind != 'engagement'`,
        query_params: params.values,
        format: "JSONEachRow",
      });
      const [row] = await result.json<{ first: string; last: string; hits: string | number }>();
      return row && Number(row.hits) > 0 ? { from: row.first, to: row.last } : null;
    },
    visitFiguresOn: async () => new Map(),
    pageFiguresOn: async () => new Map(),
    pageTotalsOn: async () => new Map(),
    countSignals: async () => 0,
    async *signalsByDay() {},
  };
}
