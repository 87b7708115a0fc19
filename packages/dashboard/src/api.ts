// The JSON API as the page sees it: @tally-analytics/client on the same origin, with the
// host's cookies, and the API key when one was entered.
import { createClient as createTallyClient, TallyApiError, type TallyClient } from "@tally-analytics/client";

export type {
  Account,
  Alert,
  AlertCreate,
  AlertDelivery,
  Annotation,
  Goal,
  Live,
  Me,
  SavedSegment,
  Session,
  SessionHit,
  User,
  StatName,
  StatRow,
  StatsQuery,
  Totals,
  TotalFigures,
  TotalsQuery,
  Website,
} from "@tally-analytics/client";

/** What the lists show of a page of rows. */
export interface ListPage<T> {
  data: T[];
  meta: { current_page: number; last_page: number; per_page: number; total: number; from: number | null; to: number | null };
}

/** A refusal of the API, with its status (and `retryAfter` on a 429). */
export const isApiError = (error: unknown): error is TallyApiError => error instanceof TallyApiError;

export interface Client extends TallyClient {
  /** Absolute URL of the mount, ending in `/`. */
  base: URL;
}

const KEY_STORAGE = "tally.key";

/** The API key typed on the sign-in form, for this tab only. */
export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  set: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

export function createClient(base: URL, key: () => string | null = apiKey.get): Client {
  return { ...createTallyClient({ baseUrl: base, apiKey: key }), base };
}
