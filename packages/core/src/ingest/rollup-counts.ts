import type { Counters } from "../model/counters.js";
import { closingPeriods, dayBefore } from "../model/periods.js";
import { dayText } from "../shared/calendar.js";
import type { Steps } from "../shared/steps.js";
import type { FlushIo } from "./flush-io.js";

/**
 * Adds counts to the rollups (model/periods.ts): a row per value and day, and per closed
 * wider period. Before that, each website's periods that ended before the newest day it
 * has counts for are closed: their rows become the sums of the rows already stored for
 * their days (this flush's counts then go to them too), and the trailing period moves
 * with the watermark (model/trailing-period.ts). Days past tomorrow close nothing.
 */
export function* writeCounts(io: FlushIo, counters: Counters): Steps<void> {
  const days = counters.days();
  if (days.size === 0) return;
  const closed = yield* io.lockWatermarks([...days.keys()].sort((a, b) => a - b));
  const tomorrow = dayText(Math.floor(Date.now() / 86_400_000) + 1);
  for (const [websiteId, { first, last }] of days) {
    const stored = closed.get(websiteId);
    // Without a watermark nothing was summed yet: the periods before this flush's first day stay as they were.
    let through = stored || dayBefore(first);
    const target = dayBefore(last < tomorrow ? last : tomorrow);
    if (target > through) {
      for (const period of closingPeriods(through, target)) yield* io.sumPeriod(websiteId, period);
      through = target;
    }
    if (through !== stored) {
      yield* io.shiftTrailing(websiteId, stored ?? "", through);
      yield* io.saveWatermark(websiteId, through);
      closed.set(websiteId, through);
    }
  }
  yield* io.addCounts(counters.rows(closed));
}
