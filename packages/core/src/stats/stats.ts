import type { Page, Websites } from "../websites/websites.js";
import { parseStatsQuery, type StatRow, type StatsQueryInput, type createStatsReader } from "./stats-query.js";

export interface Stats {
  /** One statistic of one of the account's websites (SPEC §5); waits for buffered hits first. */
  query(accountId: number, websiteId: number, input: StatsQueryInput): Promise<Page<StatRow>>;
  /** The same without an account check, for pages that already decided access (shared stats). */
  queryWebsite(websiteId: number, input: StatsQueryInput): Promise<Page<StatRow>>;
}

export function createStats(
  websites: Websites,
  readStat: ReturnType<typeof createStatsReader>,
  beforeRead: () => Promise<void>,
): Stats {
  const stats: Stats = {
    async query(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      return stats.queryWebsite(websiteId, input);
    },
    async queryWebsite(websiteId, input) {
      const query = parseStatsQuery(input);
      await beforeRead();
      return readStat(websiteId, query);
    },
  };
  return stats;
}
