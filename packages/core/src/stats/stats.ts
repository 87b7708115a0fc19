import type { Page, Websites } from "../websites/websites.js";
import type { Realtime, createRealtimeReader } from "./realtime.js";
import { parseStatsQuery, type StatRow, type StatsQueryInput, type createStatsReader } from "./stats-query.js";

export interface Stats {
  /** One statistic of one of the account's websites (SPEC §5); waits for buffered hits first. */
  query(accountId: number, websiteId: number, input: StatsQueryInput): Promise<Page<StatRow>>;
  /** The same without an account check, for pages that already decided access (shared stats). */
  queryWebsite(websiteId: number, input: StatsQueryInput): Promise<Page<StatRow>>;
  /** Visitors in the last five minutes on one of the account's websites; waits for buffered hits first. */
  realtime(accountId: number, websiteId: number): Promise<Realtime>;
  /** The same without an account check (shared stats). */
  realtimeWebsite(websiteId: number): Promise<Realtime>;
}

export function createStats(
  websites: Websites,
  readStat: ReturnType<typeof createStatsReader>,
  beforeRead: () => Promise<void>,
  readRealtime: ReturnType<typeof createRealtimeReader>,
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
    async realtime(accountId, websiteId) {
      await websites.get(accountId, websiteId);
      return stats.realtimeWebsite(websiteId);
    },
    async realtimeWebsite(websiteId) {
      await beforeRead();
      return readRealtime(websiteId);
    },
  };
  return stats;
}
