import type { Client, ListPage, Params, StatRow } from "./api.js";

export interface StatsParams extends Params {
  name: string;
  from: string;
  to: string;
}

/** Where a stats view reads from: the account API, or a share page's public API. */
export interface StatsSource {
  stats(params: StatsParams): Promise<ListPage<StatRow>>;
  realtime(): Promise<number>;
}

interface RealtimeBody {
  data: { visitors: number };
}

export function accountSource(client: Client, websiteId: number): StatsSource {
  return {
    stats: (params) => client.get(`api/v1/stats/${websiteId}`, params),
    realtime: async () => (await client.get<RealtimeBody>(`api/v1/realtime/${websiteId}`)).data.visitors,
  };
}

export function shareSource(client: Client, domain: string): StatsSource {
  const path = `share/${encodeURIComponent(domain)}/api`;
  return {
    stats: (params) => client.get(`${path}/stats`, params),
    realtime: async () => (await client.get<RealtimeBody>(`${path}/realtime`)).data.visitors,
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
