/**
 * Tally in an app's own tests (docs/guide/inside-your-app.md): a website to count on, and what
 * was counted, once everything buffered is written.
 *
 *   const tally = createTally({ database: ":memory:" });
 *   await createTestWebsite(tally, "app.test");
 *   // … the app signs someone up …
 *   expect(await recorded(tally, "app.test")).toEqual({ Signup: 1 });
 *   expect(await recorded(tally, "app.test", "event_property", { event: "Signup", property: "plan" })).toEqual({ pro: 1 });
 */
import { addDays } from "./shared/calendar.js";
import { NotFoundError } from "./shared/errors.js";
import type { StatName } from "./model/stat-names.js";
import type { StatsQueryInput } from "./stats/stats-query.js";
import { tallyInternals, type Tally } from "./tally.js";

/**
 * Creates an account and a website for `domain` (UTC days; bots counted, since test
 * clients' user agents often look like bots) and answers their ids.
 */
export async function createTestWebsite(tally: Tally, domain = "app.test"): Promise<{ accountId: number; websiteId: number }> {
  const { accountId } = await tally.accounts.create({ name: "test" });
  const website = await tally.websites.create(accountId, { domain, exclude_bots: 0 });
  return { accountId, websiteId: website.id };
}

/** Waits until everything buffered is written: hits, events, and server pageviews still waiting for the tracker. */
export const settled = (tally: Tally): Promise<void> => tally.flush();

/**
 * One statistic of the website of `domain` (`event` unless named) around today, as
 * `{ value: count }`, once everything buffered is written. `query` adds the statistic's
 * own parameters (`event` and `property` for `event_property`, filters).
 */
export async function recorded(
  tally: Tally,
  domain: string,
  name: StatName = "event",
  query: Omit<StatsQueryInput, "name" | "from" | "to"> = {},
): Promise<Record<string, number>> {
  await settled(tally);
  const website = await tallyInternals(tally).websites.findByDomain(domain);
  if (!website) throw new NotFoundError(`No website is registered for ${domain}.`);
  const today = new Date().toISOString().slice(0, 10);
  // A day either side: a test running across midnight, or a website in another time zone.
  const range = { from: addDays(today, -1), to: addDays(today, 1), per_page: 100 };
  const page = await tally.stats.queryWebsite(Number(website.id), { ...query, name, ...range });
  return Object.fromEntries(page.data.map((row) => [row.value, row.count]));
}
