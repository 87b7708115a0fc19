import type { FunnelResult, JourneyResult } from "../model/path-schemas.js";
import type { Funnels } from "../websites/funnels.js";
import type { Websites } from "../websites/websites.js";
import { parseFunnelQuery, parseJourneyQuery, type FunnelQueryInput, type JourneyQueryInput } from "./path-query.js";
import type { PathRunner } from "./paths.js";
import { NotFoundError } from "../shared/errors.js";
import { validate } from "../shared/validation.js";
import {
  parseSessionsQuery,
  propertyNamesQuerySchema,
  type Session,
  type SessionHit,
  type SessionsPage,
  type VisitsAnswer,
  type VisitsRequest,
} from "./sessions.js";

/** Funnels and journeys (docs/statistics.md, "Funnels and journeys"); each waits for buffered hits first. */
export interface PathStats {
  /** One of the website's funnels over a range: a row per step. */
  funnel(accountId: number, websiteId: number, input: FunnelQueryInput): Promise<FunnelResult>;
  funnelWebsite(websiteId: number, input: FunnelQueryInput): Promise<FunnelResult>;
  /** Where visits went after (or came from before) a page or an event. */
  journey(accountId: number, websiteId: number, input: JourneyQueryInput): Promise<JourneyResult>;
  journeyWebsite(websiteId: number, input: JourneyQueryInput): Promise<JourneyResult>;
  /** The range's visits matching the filters, newest first, a page at a time (docs/statistics.md, "Sessions"). */
  sessions(accountId: number, websiteId: number, input: SessionsQueryInput): Promise<SessionsPage>;
  /** One visit with its pageviews and events in order; NotFoundError when the website has no such visit. */
  session(accountId: number, websiteId: number, visitId: number): Promise<{ session: Session; hits: SessionHit[] }>;
  /** The property names an event (or `pageview`) was sent with over a range, most used first. */
  propertyNames(accountId: number, websiteId: number, input: { event?: unknown; from?: unknown; to?: unknown }): Promise<string[]>;
}

/** The sessions call's parameters: a range, filters, paging. */
export interface SessionsQueryInput {
  from?: unknown;
  to?: unknown;
  filter?: unknown;
  page?: unknown;
  per_page?: unknown;
}

export interface PathStatsParts {
  websites: Websites;
  funnels: Funnels;
  runner: PathRunner;
  beforeRead: () => Promise<void>;
}

export function createPathStats({ websites, funnels, runner, beforeRead }: PathStatsParts): PathStats {
  /** Runs a visits read after the account check and the buffered hits' write. */
  async function visits<T extends VisitsAnswer>(accountId: number, websiteId: number, request: VisitsRequest): Promise<T> {
    await websites.get(accountId, websiteId);
    await beforeRead();
    const answer = await runner.visits(websiteId, request);
    if (answer === null) throw new NotFoundError();
    return answer as T;
  }

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
    sessions: (accountId, websiteId, input) => visits(accountId, websiteId, { kind: "sessions", query: parseSessionsQuery(input) }),
    session: (accountId, websiteId, visit) => visits(accountId, websiteId, { kind: "session", visit }),
    propertyNames: (accountId, websiteId, input) =>
      visits(accountId, websiteId, { kind: "propertyNames", query: validate(propertyNamesQuerySchema, input) }),
  };
  return stats;
}
