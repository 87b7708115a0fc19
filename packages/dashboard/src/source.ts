import type { Client, ListPage, StatRow, StatsQuery } from "./api.js";

export type StatsParams = StatsQuery;

/** Where a stats view reads from: the account API, or a share page's public API. */
export interface StatsSource {
  stats(params: StatsParams): Promise<ListPage<StatRow>>;
  realtime(): Promise<number>;
}

export function accountSource(client: Client, websiteId: number): StatsSource {
  return {
    stats: (params) => client.stats.query(websiteId, params),
    realtime: async () => (await client.realtime(websiteId)).visitors,
  };
}

export function shareSource(client: Client, domain: string): StatsSource {
  const share = client.share(domain);
  return {
    stats: (params) => share.stats(params),
    realtime: async () => (await share.realtime()).visitors,
  };
}

/** Every row of a statistic, following pages (the API serves at most 100 per page). */
export async function allRows(source: StatsSource, params: StatsParams): Promise<StatRow[]> {
  const rows: StatRow[] = [];
  for (let page = 1; ; page++) {
    const result = await source.stats({ ...params, per_page: 100, page });
    rows.push(...result.data);
    if (page >= result.meta.last_page) return rows;
  }
}
