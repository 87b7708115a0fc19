/**
 * Parts of days (the Stats API v2's date-times: an afternoon, the last half hour) against
 * the model: visitors and visits of the visits started in the part, pageviews of the part's
 * own hits, on a UTC website (local wall-clock time is the hits' time).
 */
import { isDeepStrictEqual } from "node:util";
import { SITES } from "./reference-data.js";
import type { Reference } from "./reference-fixture.js";
import { keptVisits } from "./reference-segments.js";

/** A part of a day: its first and last second, `HH:MM:SS`. */
export type DayPart = readonly [first: string, last: string];

const METRICS = ["visitors", "visits", "pageviews"] as const;

/** Differences between what the v2 query of each part of each day answers and the model's figures. */
export async function partProblems(
  reference: Reference,
  site: string,
  days: readonly string[],
  parts: readonly DayPart[],
): Promise<{ problems: string[]; visits: number }> {
  const problems: string[] = [];
  let visitsSeen = 0;
  const visits = keptVisits(reference.model.visits, site, reference.firstKeptDay.get(site)!);
  for (const day of days) {
    for (const [first, last] of parts) {
      const [start, end] = [Date.parse(`${day}T${first}Z`), Date.parse(`${day}T${last}Z`) + 1000];
      const started = visits.filter((visit) => visit.start >= start && visit.start < end);
      const pageviews = visits.flatMap((visit) => visit.hits).filter((hit) => hit.event === null && hit.time >= start && hit.time < end);
      const expected = [new Set(started.map((visit) => visit.visitor)).size, started.length, pageviews.length];
      visitsSeen += started.length;
      const query = {
        site_id: SITES.find((each) => each.key === site)!.domain,
        metrics: [...METRICS],
        date_range: [`${day}T${first}Z`, `${day}T${last}Z`],
      };
      const answered = await reference.tally.stats.plausible(reference.accountId, query);
      const got = answered.results[0]?.metrics ?? [0, 0, 0];
      if (!isDeepStrictEqual(got, expected))
        problems.push(`${JSON.stringify(query.date_range)}: got ${JSON.stringify(got)} expected ${JSON.stringify(expected)}`);
    }
  }
  return { problems, visits: visitsSeen };
}
