// The JSON API as the page sees it: same origin, the host's cookies, and the API key when one was entered.

export interface StatRow {
  value: string;
  count: number;
}

export interface ListMeta {
  current_page: number;
  last_page: number;
  per_page: number;
  total: number;
  from: number | null;
  to: number | null;
}

export interface ListPage<T> {
  data: T[];
  meta: ListMeta;
}

export interface ApiError extends Error {
  status: number;
  /** Seconds, from Retry-After (429). */
  retryAfter: number;
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof Error && typeof (error as Partial<ApiError>).status === "number";
}

function apiError(status: number, message: string, retryAfter = 0): ApiError {
  return Object.assign(new Error(message), { status, retryAfter });
}

export type Params = Record<string, string | number | undefined>;

export interface Client {
  /** Absolute URL of the mount, ending in `/`. */
  base: URL;
  get<T>(path: string, params?: Params): Promise<T>;
  post<T>(path: string, fields: Record<string, string>): Promise<T>;
}

const KEY_STORAGE = "tally.key";

/** The API key typed on the sign-in form, for this tab only. */
export const apiKey = {
  get: (): string | null => sessionStorage.getItem(KEY_STORAGE),
  set: (key: string) => sessionStorage.setItem(KEY_STORAGE, key),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

export function createClient(base: URL, key: () => string | null = apiKey.get): Client {
  async function send<T>(url: URL, init: RequestInit): Promise<T> {
    const headers = new Headers(init.headers);
    headers.set("accept", "application/json");
    const secret = key();
    if (secret) headers.set("authorization", `Bearer ${secret}`);
    const response = await fetch(url, { ...init, headers, credentials: "same-origin" });
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    if (!response.ok) {
      throw apiError(response.status, body.message ?? response.statusText, Number(response.headers.get("retry-after") ?? 0));
    }
    return body as T;
  }

  return {
    base,
    get(path, params = {}) {
      const url = new URL(path, base);
      for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== "") url.searchParams.set(name, String(value));
      return send(url, {});
    },
    post(path, fields) {
      return send(new URL(path, base), { method: "POST", body: new URLSearchParams(fields) });
    },
  };
}
