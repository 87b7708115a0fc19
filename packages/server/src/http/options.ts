import type { ErrorReporter } from "./errors.js";
import type { RateLimitOptions } from "./rate-limit.js";

/** What the host's hook may say about a request beyond its account: the person's role, and the websites they are limited to. */
export interface HostAccess {
  accountId: number;
  /** `owner` (everything), `admin` (websites and settings) or `viewer` (reads statistics). */
  role: "owner" | "admin" | "viewer";
  /** Website ids this request may see; absent or null for all of the account's. */
  websites?: readonly number[] | null;
}

/**
 * The host app's own authentication: an account id (its owner), a HostAccess, or null to
 * fall back to an API key or Tally's own sign-in.
 *
 * It gets a web-standard fetch `Request` in every framework, not the framework's own request
 * object: read a cookie with `request.headers.get("cookie")` (Express's `req.headers.cookie`
 * or `req.cookies` are not there), then look the session up as your app does.
 */
export type Authenticate = (request: Request) => number | HostAccess | null | Promise<number | HostAccess | null>;

/** OpenID Connect single sign-on (`openid-client`): people are matched to users by verified e-mail. */
export interface SsoOptions {
  /** The provider's issuer URL; its `/.well-known/openid-configuration` is read at the first sign-in. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /**
   * What happens to someone the provider vouches for who has no user yet: they join this
   * account with this role, or, when absent, are refused.
   * @default undefined (refused)
   */
  newUsers?: {
    /** @default the only account (with several, set it) */
    accountId?: number;
    role: "owner" | "admin" | "viewer";
  };
  /** Shown on the sign-in page's button. @default "single sign-on" */
  name?: string;
}

export interface HandlerOptions {
  /**
   * Sign-in through an OpenID Connect provider, beside passwords. The provider must
   * allow the redirect URI `{mount}/sso/callback`.
   * @default undefined (no single sign-on)
   */
  sso?: SsoOptions;
  /**
   * The path the handler is mounted under in public URLs, e.g. `"/analytics"`. Requests
   * keep their full URL (links are built from it); routes match what follows this prefix.
   * Adapters that learn the mount per request pass `context.basePath` instead.
   * @default ""
   */
  basePath?: string;
  /**
   * The host app's own authentication (session, JWT…), given the request as a fetch
   * `Request` (`request.headers.get("cookie")`). Returns an account id, or null
   * to fall back to `Authorization: Bearer <key>`. Requests it signs in are protected
   * from CSRF: a POST, PUT, PATCH or DELETE must come from the same origin
   * (`Sec-Fetch-Site`, else `Origin`; 403 otherwise) and send JSON, not a form body
   * (415), unless `acceptSessionForms` is set.
   * @default undefined (API keys only)
   */
  authenticate?: Authenticate;
  /**
   * Accept `application/x-www-form-urlencoded` bodies on state-changing requests signed
   * in by `authenticate`. Only turn this on when your app checks a CSRF token on them
   * before Tally sees them: any site's HTML form can send such a body with your cookies.
   * Requests with an API key always accept forms.
   * @default false
   */
  acceptSessionForms?: boolean;
  /**
   * Requests allowed per credential and window on the API (fixed window, in memory): each
   * API key has its own budget, each signed-in person theirs, and the host's `authenticate`
   * sign-in one per account, so one key used hard never holds back the others.
   * `X-RateLimit-Limit`/`X-RateLimit-Remaining` are sent when enabled; 429 when spent.
   * Refused API keys (on the API and on share pages) count per client address (an IPv6
   * client by its /64) against the same limit; a right key is never held back.
   * @default false
   */
  rateLimit?: RateLimitOptions | false;
  /**
   * Requests allowed per client address (an IPv6 client by its /64; behind a proxy, set
   * `trustProxy`) and window on the public routes that read the database: share pages,
   * their API and password form, and any request whose credentials are refused.
   * `/collect`, `/script.js` and the dashboard's static files are never limited. 429
   * with `Retry-After` when spent. Counted in memory, per process.
   * @default { limit: 600, windowMs: 60000 }
   */
  publicRateLimit?: RateLimitOptions | false;
  /**
   * Compress text answers of 1 KB or more (JSON, pages) with brotli or gzip, as the
   * client's `Accept-Encoding` prefers, adding `Vary: Accept-Encoding`; the tracker and
   * the dashboard's files go out compressed at build time whatever this says. Answers
   * are never compressed twice: a host's own compression (Express's `compression()`,
   * `@fastify/compress`, Hono's `compress()`) leaves encoded answers alone. Turn it off
   * when a proxy in front compresses anyway.
   * @default true
   */
  compression?: boolean;
  /**
   * Largest API request body, in bytes; larger is refused with 413.
   * @default 65536
   */
  bodyLimit?: number;
  /**
   * Told about every unexpected error; the client only ever gets `500 Server error.`.
   * @default a one-line message on console.error
   */
  onError?: ErrorReporter;
}

/** What the transport knows about a request beyond the Request itself. */
export interface HandlerContext {
  /** The peer's socket address. */
  ip?: string | undefined;
  /** Overrides `options.basePath` for this request (e.g. Express's mount path). */
  basePath?: string | undefined;
}

/** A web-standard handler: Hono, Bun and Deno can serve it as is. */
export type TallyHandler = (request: Request, context?: HandlerContext) => Promise<Response>;
