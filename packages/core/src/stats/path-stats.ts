import type { FunnelResult, JourneyResult } from "../model/path-schemas.js";
import type { Funnels } from "../websites/funnels.js";
import type { Websites } from "../websites/websites.js";
import { parseFunnelQuery, parseJourneyQuery, type FunnelQueryInput, type JourneyQueryInput } from "./path-query.js";
import type { PathRunner } from "./paths.js";

/** Funnels and journeys (docs/statistics.md, "Funnels and journeys"); each waits for buffered hits first. */
export interface PathStats {
  /** One of the website's funnels over a range: a row per step. */
  funnel(accountId: number, websiteId: number, input: FunnelQueryInput): Promise<FunnelResult>;
  funnelWebsite(websiteId: number, input: FunnelQueryInput): Promise<FunnelResult>;
  /** Where visits went after (or came from before) a page or an event. */
  journey(accountId: number, websiteId: number, input: JourneyQueryInput): Promise<JourneyResult>;
  journeyWebsite(websiteId: number, input: JourneyQueryInput): Promise<JourneyResult>;
}

export interface PathStatsParts {
  websites: Websites;
  funnels: Funnels;
  runner: PathRunner;
  beforeRead: () => Promise<void>;
}

export function createPathStats({ websites, funnels, runner, beforeRead }: PathStatsParts): PathStats {
  const stats: PathStats = {
    async funnel(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      return stats.funnelWebsite(websiteId, input);
    },
    async funnelWebsite(websiteId, input) {
      const query = parseFunnelQuery(input);
      const funnel = await funnels.getOfWebsite(websiteId, query.funnel);
      await beforeRead();
      const answer = await runner.funnel(websiteId, { ...query, steps: funnel.steps });
      return { ...answer, funnel: { id: funnel.id, name: funnel.name } };
    },
    async journey(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      return stats.journeyWebsite(websiteId, input);
    },
    async journeyWebsite(websiteId, input) {
      const query = parseJourneyQuery(input);
      await beforeRead();
      return runner.journey(websiteId, query);
    },
  };
  return stats;
}
