import { TallyApiError } from "./errors.js";
import type {
  Account,
  Alert,
  AlertCreate,
  AlertDeleted,
  AlertDeliveriesQuery,
  AlertDelivery,
  AlertUpdate,
  Annotation,
  AnnotationCreate,
  AnnotationListQuery,
  AnnotationUpdate,
  Deleted,
  Goal,
  GoalCreate,
  Live,
  PropertyNamesQuery,
  SessionDetail,
  SessionsPage,
  SessionsQuery,
  SavedSegment,
  SavedSegmentCreate,
  SavedSegmentUpdate,
  ShareLink,
  ShareLinkCreate,
  Funnel,
  FunnelCreate,
  FunnelDeleted,
  FunnelQuery,
  FunnelResult,
  JourneyQuery,
  JourneyResult,
  CreatedKey,
  Invitation,
  InvitationSent,
  PendingInvitation,
  KeyCreate,
  Me,
  TwoFactorSetup,
  User,
  UserKeyListing,
  UserUpdate,
  AccountUpdate,
  Realtime,
  SharedWebsite,
  StatsPage,
  StatsQuery,
  Totals,
  TotalsQuery,
  Website,
  WebsiteCreate,
  WebsiteDeleted,
  WebsiteList,
  WebsiteListQuery,
  WebsiteUpdate,
} from "./types.js";

export interface TallyClientOptions {
  /** Where Tally is mounted: `http://127.0.0.1:3000`, `https://example.com/analytics`. */
  baseUrl: string | URL;
  /**
   * An API key (`tly_…`), or a function read before every request. Leave it out where the
   * host app's own session authenticates the browser (its `authenticate` hook).
   * @default undefined (no Authorization header)
   */
  apiKey?: string | (() => string | null | undefined) | undefined;
  /**
   * The fetch to use (a test double, or one with a proxy agent).
   * @default globalThis.fetch
   */
  fetch?: typeof globalThis.fetch;
}

type QueryValue = string | number | readonly (string | number)[] | undefined;
type Query = Readonly<Record<string, QueryValue>>;

interface Call {
  query?: Query | undefined;
  body?: object;
}

/** A share page's read-only API (`{base}/share/{domain}`), as its website's privacy allows. */
export interface ShareClient {
  website(): Promise<SharedWebsite>;
  stats(query: StatsQuery): Promise<StatsPage>;
  totals(query: TotalsQuery): Promise<Totals>;
  realtime(): Promise<Realtime>;
  /** The last 30 minutes (without the dropped hits). */
  live(): Promise<Live>;
  /** Sends the share page's password; the answer sets its cookie (browsers keep it). */
  unlock(password: string): Promise<{ message: string }>;
}

export interface TallyClient {
  account(): Promise<Account>;
  /** Sets where the account's e-mail reports go (`email`, empty for none) and what they cover (`report_period`). */
  updateAccount(fields: AccountUpdate): Promise<Account>;
  websites: {
    list(query?: WebsiteListQuery): Promise<WebsiteList>;
    get(id: number): Promise<Website>;
    create(fields: WebsiteCreate): Promise<Website>;
    update(id: number, fields: WebsiteUpdate): Promise<Website>;
    delete(id: number): Promise<WebsiteDeleted>;
  };
  /** Each website's funnels (2 to 8 steps, `page:<pattern>` or `event:<name>`); read one with `stats.funnel`. */
  funnels: {
    list(websiteId: number): Promise<Funnel[]>;
    create(websiteId: number, fields: FunnelCreate): Promise<Funnel>;
    delete(websiteId: number, funnelId: number): Promise<FunnelDeleted>;
  };
  /** Each website's alert rules (admins and owners) and their delivery log, newest first. */
  alerts: {
    list(websiteId: number): Promise<Alert[]>;
    create(websiteId: number, fields: AlertCreate): Promise<Alert>;
    update(websiteId: number, alertId: number, fields: AlertUpdate): Promise<Alert>;
    delete(websiteId: number, alertId: number): Promise<AlertDeleted>;
    deliveries(websiteId: number, query?: AlertDeliveriesQuery): Promise<AlertDelivery[]>;
  };
  /** Each website's goals (page patterns and events), shared by everyone who sees it; the `goals` statistic counts them. */
  goals: {
    list(websiteId: number): Promise<Goal[]>;
    create(websiteId: number, fields: GoalCreate): Promise<Goal>;
    delete(websiteId: number, goalId: number): Promise<Deleted>;
  };
  /** Notes on a website's days, shown on the charts. */
  annotations: {
    list(websiteId: number, query?: AnnotationListQuery): Promise<Annotation[]>;
    create(websiteId: number, fields: AnnotationCreate): Promise<Annotation>;
    update(websiteId: number, annotationId: number, fields: AnnotationUpdate): Promise<Annotation>;
    delete(websiteId: number, annotationId: number): Promise<Deleted>;
  };
  /** Named links to a website's share page (`?link=`), each revoked on its own. */
  shareLinks: {
    list(websiteId: number): Promise<ShareLink[]>;
    create(websiteId: number, fields: ShareLinkCreate): Promise<ShareLink>;
    delete(websiteId: number, linkId: number): Promise<Deleted>;
  };
  /** Filter sets saved under a name: the caller's personal ones and those shared with the team. */
  segments: {
    list(websiteId: number): Promise<SavedSegment[]>;
    create(websiteId: number, fields: SavedSegmentCreate): Promise<SavedSegment>;
    update(websiteId: number, segmentId: number, fields: SavedSegmentUpdate): Promise<SavedSegment>;
    delete(websiteId: number, segmentId: number): Promise<Deleted>;
  };
  stats: {
    /** One statistic: rows `{value, count}`, paged, with `meta` and `links`. */
    query(websiteId: number, query: StatsQuery): Promise<StatsPage>;
    /** Visitors, visits, pageviews, bounce rate, visit duration and views per visit of a range. */
    totals(websiteId: number, query: TotalsQuery): Promise<Totals>;
    /** A funnel over a range: a row per step with its visitors, conversion rate and drop-off. */
    funnel(websiteId: number, query: FunnelQuery): Promise<FunnelResult>;
    /** Where visits went after (or came from before) a page or an event: nodes per step and the links between them. */
    journey(websiteId: number, query: JourneyQuery): Promise<JourneyResult>;
    /** The range's sessions matching the filters, newest first, a page at a time. */
    sessions(websiteId: number, query: SessionsQuery): Promise<SessionsPage>;
    /** One session and its pageviews and events, in order. */
    session(websiteId: number, visitId: number): Promise<SessionDetail>;
    /** The property names an event was sent with over a range, most used first. */
    properties(websiteId: number, query: PropertyNamesQuery): Promise<string[]>;
  };
  /** The last 30 minutes minute by minute, their pages, sources and countries, and the hits dropped lately. */
  live(websiteId: number): Promise<Live>;
  /** Visitors in the last five minutes. */
  realtime(websiteId: number): Promise<Realtime>;
  share(domain: string): ShareClient;
  /** Who the credentials speak for: user, role, website limits, key scope. */
  me(): Promise<Me>;
  /** The account's people (owners only). */
  users: {
    list(): Promise<User[]>;
    /** Mails an invitation (single use, 7 days); without mail set up, the answer carries the link. */
    invite(fields: Invitation): Promise<InvitationSent>;
    /** Invitations not accepted yet, with the owner who sent each. */
    invitations(): Promise<PendingInvitation[]>;
    /** Ends a pending invitation: its link stops working. */
    revokeInvitation(email: string): Promise<{ email: string; deleted: true }>;
    update(id: number, fields: UserUpdate): Promise<User>;
    remove(id: number): Promise<{ id: number; deleted: true }>;
  };
  /** The caller's own API keys (a user's session or key). */
  keys: {
    list(): Promise<UserKeyListing[]>;
    /** The answer holds the key itself, this once. */
    create(fields: KeyCreate): Promise<CreatedKey>;
    revoke(id: number): Promise<{ id: number; deleted: true }>;
  };
  /** The caller's two-factor sign-in. */
  twoFactor: {
    /** A new secret to scan; with two-factor sign-in on already, `code` (current, or a recovery code) is required. */
    begin(code?: string): Promise<TwoFactorSetup>;
    /** Turns it on with a code; resolves to the recovery codes, shown this once. */
    confirm(code: string): Promise<string[]>;
    disable(code: string): Promise<void>;
    /** Owners: require it of everyone in the account (or not). */
    require(required: boolean): Promise<void>;
  };
}

function url(base: string, path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== "") params.append(name, String(item));
  }
  const search = params.toString();
  return `${base}${path}${search ? `?${search}` : ""}`;
}

async function failure(response: Response): Promise<TallyApiError> {
  const body = (await response.json().catch(() => ({}))) as { message?: unknown; errors?: Record<string, string[]> };
  const retryAfter = response.headers.get("retry-after");
  const message = typeof body.message === "string" ? body.message : response.statusText || `HTTP ${response.status}`;
  return new TallyApiError(response.status, message, body.errors ?? {}, retryAfter === null ? null : Number(retryAfter));
}

/**
 * A client for one Tally: `createClient({ baseUrl, apiKey })`. Every method resolves to
 * the API's answer (the resource itself where the API wraps one in `data`) or rejects with
 * a TallyApiError.
 */
export function createClient({ baseUrl, apiKey, fetch = globalThis.fetch }: TallyClientOptions): TallyClient {
  const base = String(baseUrl).replace(/\/+$/, "");
  const key = typeof apiKey === "function" ? apiKey : () => apiKey;

  async function call<T>(method: string, path: string, { query, body }: Call = {}): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    const secret = key();
    if (secret) headers.authorization = `Bearer ${secret}`;
    if (body) headers["content-type"] = "application/json";
    const response = await fetch(url(base, path, query), { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (!response.ok) throw await failure(response);
    return (await response.json()) as T;
  }
  const data = async <T>(answer: Promise<{ data: T }>) => (await answer).data;
  const id = (value: number) => encodeURIComponent(String(value));

  return {
    account: () => data(call("GET", "/api/v1/account")),
    updateAccount: (fields) => data(call("PUT", "/api/v1/account", { body: fields })),
    websites: {
      list: (query) => call("GET", "/api/v1/websites", { query }),
      get: (websiteId) => data(call("GET", `/api/v1/websites/${id(websiteId)}`)),
      create: (fields) => data(call("POST", "/api/v1/websites", { body: fields })),
      update: (websiteId, fields) => data(call("PUT", `/api/v1/websites/${id(websiteId)}`, { body: fields })),
      delete: (websiteId) => call("DELETE", `/api/v1/websites/${id(websiteId)}`),
    },
    funnels: {
      list: (websiteId) => data(call("GET", `/api/v1/websites/${id(websiteId)}/funnels`)),
      create: (websiteId, fields) => data(call("POST", `/api/v1/websites/${id(websiteId)}/funnels`, { body: fields })),
      delete: (websiteId, funnelId) => call("DELETE", `/api/v1/websites/${id(websiteId)}/funnels/${id(funnelId)}`),
    },
    alerts: {
      list: (websiteId) => data(call("GET", `/api/v1/websites/${id(websiteId)}/alerts`)),
      create: (websiteId, fields) => data(call("POST", `/api/v1/websites/${id(websiteId)}/alerts`, { body: fields })),
      update: (websiteId, alertId, fields) =>
        data(call("PUT", `/api/v1/websites/${id(websiteId)}/alerts/${id(alertId)}`, { body: fields })),
      delete: (websiteId, alertId) => call("DELETE", `/api/v1/websites/${id(websiteId)}/alerts/${id(alertId)}`),
      deliveries: (websiteId, query) => data(call("GET", `/api/v1/websites/${id(websiteId)}/alert-deliveries`, { query })),
    },
    goals: {
      list: (websiteId) => data(call("GET", `/api/v1/websites/${id(websiteId)}/goals`)),
      create: (websiteId, fields) => data(call("POST", `/api/v1/websites/${id(websiteId)}/goals`, { body: fields })),
      delete: (websiteId, goalId) => call("DELETE", `/api/v1/websites/${id(websiteId)}/goals/${id(goalId)}`),
    },
    annotations: {
      list: (websiteId, query) => data(call("GET", `/api/v1/websites/${id(websiteId)}/annotations`, { query })),
      create: (websiteId, fields) => data(call("POST", `/api/v1/websites/${id(websiteId)}/annotations`, { body: fields })),
      update: (websiteId, annotationId, fields) =>
        data(call("PUT", `/api/v1/websites/${id(websiteId)}/annotations/${id(annotationId)}`, { body: fields })),
      delete: (websiteId, annotationId) => call("DELETE", `/api/v1/websites/${id(websiteId)}/annotations/${id(annotationId)}`),
    },
    shareLinks: {
      list: (websiteId) => data(call("GET", `/api/v1/websites/${id(websiteId)}/share-links`)),
      create: (websiteId, fields) => data(call("POST", `/api/v1/websites/${id(websiteId)}/share-links`, { body: fields })),
      delete: (websiteId, linkId) => call("DELETE", `/api/v1/websites/${id(websiteId)}/share-links/${id(linkId)}`),
    },
    segments: {
      list: (websiteId) => data(call("GET", `/api/v1/websites/${id(websiteId)}/segments`)),
      create: (websiteId, fields) => data(call("POST", `/api/v1/websites/${id(websiteId)}/segments`, { body: fields })),
      update: (websiteId, segmentId, fields) =>
        data(call("PUT", `/api/v1/websites/${id(websiteId)}/segments/${id(segmentId)}`, { body: fields })),
      delete: (websiteId, segmentId) => call("DELETE", `/api/v1/websites/${id(websiteId)}/segments/${id(segmentId)}`),
    },
    stats: {
      query: (websiteId, query) => call("GET", `/api/v1/stats/${id(websiteId)}`, { query }),
      totals: (websiteId, query) => call("GET", `/api/v1/stats/${id(websiteId)}/totals`, { query }),
      funnel: (websiteId, query) => call("GET", `/api/v1/stats/${id(websiteId)}/funnel`, { query }),
      journey: (websiteId, query) => call("GET", `/api/v1/stats/${id(websiteId)}/journey`, { query }),
      sessions: (websiteId, query) => call("GET", `/api/v1/stats/${id(websiteId)}/sessions`, { query }),
      session: (websiteId, visitId) => data(call("GET", `/api/v1/stats/${id(websiteId)}/sessions/${id(visitId)}`)),
      properties: (websiteId, query) => data(call("GET", `/api/v1/stats/${id(websiteId)}/properties`, { query })),
    },
    live: (websiteId) => data(call("GET", `/api/v1/live/${id(websiteId)}`)),
    realtime: (websiteId) => data(call("GET", `/api/v1/realtime/${id(websiteId)}`)),
    me: () => data(call("GET", "/api/v1/me")),
    users: {
      list: () => data(call("GET", "/api/v1/users")),
      invite: (fields) => data(call("POST", "/api/v1/users/invitations", { body: fields })),
      invitations: () => data(call("GET", "/api/v1/users/invitations")),
      revokeInvitation: (email) => call("DELETE", `/api/v1/users/invitations/${encodeURIComponent(email)}`),
      update: (userId, fields) => data(call("PUT", `/api/v1/users/${id(userId)}`, { body: fields })),
      remove: (userId) => call("DELETE", `/api/v1/users/${id(userId)}`),
    },
    keys: {
      list: () => data(call("GET", "/api/v1/me/keys")),
      create: (fields) => data(call("POST", "/api/v1/me/keys", { body: fields })),
      revoke: (keyId) => call("DELETE", `/api/v1/me/keys/${id(keyId)}`),
    },
    twoFactor: {
      begin: (code) => data(call("POST", "/api/v1/me/two-factor", code === undefined ? {} : { body: { code } })),
      confirm: async (code) =>
        (await data(call<{ data: { recovery_codes: string[] } }>("POST", "/api/v1/me/two-factor/confirm", { body: { code } })))
          .recovery_codes,
      disable: async (code) => void (await call("POST", "/api/v1/me/two-factor/disable", { body: { code } })),
      require: async (required) => void (await call("PUT", "/api/v1/account/two-factor", { body: { required } })),
    },
    share(domain) {
      const path = `/share/${encodeURIComponent(domain)}/api`;
      return {
        website: () => data(call("GET", `${path}/website`)),
        stats: (query) => call("GET", `${path}/stats`, { query }),
        totals: (query) => call("GET", `${path}/totals`, { query }),
        realtime: () => data(call("GET", `${path}/realtime`)),
        live: () => data(call("GET", `${path}/live`)),
        unlock: (password) => call("POST", `${path}/auth`, { body: { password } }),
      };
    },
  };
}
