import { WIDER_ROLLUPS } from "../model/stat-names.js";
import { TRAILING_PERIOD, trailingShift, type Days } from "../model/trailing-period.js";
import type { Steps } from "../shared/steps.js";
import { runStatement, type SqlRunner } from "./sql-runner.js";

const names = WIDER_ROLLUPS.map(() => "?").join(", ");

/** Adds (sign 1) or subtracts (-1) a run of days' rows to the trailing rows: one index range per statistic. */
const ADD_DAYS = `insert into rollups (website_id, name, period, value, count)
  select website_id, name, cast(? as text), value, sum(count) * cast(? as integer) from rollups
  where website_id = ? and name in (${names}) and period >= ? and period <= ? and length(period) = 10
  group by website_id, name, value having sum(count) <> 0
  on conflict (website_id, name, period, value) do update set count = rollups.count + excluded.count`;

/** The same for one day (the daily shift): its rows are one a value already, nothing to group. */
const ADD_DAY = `insert into rollups (website_id, name, period, value, count)
  select website_id, name, cast(? as text), value, count * cast(? as integer) from rollups
  where website_id = ? and name in (${names}) and period = ? and count <> 0
  on conflict (website_id, name, period, value) do update set count = rollups.count + excluded.count`;

/** Values whose days have all left the trailing period. */
const DELETE_ZEROS = `delete from rollups where website_id = ? and name in (${names}) and period = ? and count = 0`;

function* addDays(runner: SqlRunner, websiteId: number, days: Days, sign: 1 | -1): Steps<void> {
  if (days.from === days.to) yield* runStatement(runner, ADD_DAY, [TRAILING_PERIOD, sign, websiteId, ...WIDER_ROLLUPS, days.from]);
  else yield* runStatement(runner, ADD_DAYS, [TRAILING_PERIOD, sign, websiteId, ...WIDER_ROLLUPS, days.from, days.to]);
}

/**
 * Moves a website's trailing rows (model/trailing-period.ts) with its watermark, from
 * `before` ("": no rows yet) to `after`: from the day rows stored, so it runs before a
 * flush adds its own counts (which go to the trailing rows as late counts do).
 */
export function* shiftTrailing(runner: SqlRunner, websiteId: number, before: string, after: string): Steps<void> {
  const { leave, enter } = trailingShift(before, after);
  if (leave) {
    yield* addDays(runner, websiteId, leave, -1);
    yield* runStatement(runner, DELETE_ZEROS, [websiteId, ...WIDER_ROLLUPS, TRAILING_PERIOD]);
  }
  yield* addDays(runner, websiteId, enter, 1);
}
