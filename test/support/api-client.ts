import type { ListMeta } from "@tally-analytics/client";
import type { Website } from "@tally-analytics/core";
import { expect } from "vitest";
import type { Served } from "./transports.js";

/** A JSON answer of the API: the body's `status` is the HTTP status, and no stack trace ever. */
export function expectJson(response: ApiResponse, status: number): void {
  expect(response.status).toBe(status);
  expect(response.body.status).toBe(status);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  expect(response.text).not.toMatch(/\n\s+at /);
}

/** A 422 with exactly these field errors. */
export function expectInvalid(response: ApiResponse, errors: Record<string, string[]>): void {
  expectJson(response, 422);
  expect(response.body).toEqual({ message: "The given data was invalid.", errors, status: 422 });
}

/** The list envelope's `meta`, as the OpenAPI document (and so the client) types it. */
export type { ListMeta } from "@tally-analytics/client";

/** The JSON bodies the API sends, loosely: each test asserts the parts it cares about. */
export interface ApiBody {
  status: number;
  message?: string;
  errors?: Record<string, string[]>;
  data?: unknown;
  links?: { first: string; last: string; prev: string | null; next: string | null };
  meta?: ListMeta;
  [key: string]: unknown;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: ApiBody;
  text: string;
}

export const website = (response: ApiResponse) => response.body.data as Website;
export const websites = (response: ApiResponse) => response.body.data as Website[];

type Fields = Record<string, string | number>;

export function form(fields: Fields | [string, string][]): RequestInit {
  const entries = Array.isArray(fields) ? fields : Object.entries(fields).map(([k, v]) => [k, String(v)]);
  return { body: new URLSearchParams(entries), headers: { "content-type": "application/x-www-form-urlencoded" } };
}

export function jsonBody(value: unknown): RequestInit {
  return { body: JSON.stringify(value), headers: { "content-type": "application/json" } };
}

/** Calls the API as one account (or none when `key` is null). */
export function apiClient(served: Served, key: string | null) {
  async function call(method: string, path: string, init: RequestInit = {}, extra: Record<string, string> = {}): Promise<ApiResponse> {
    const headers = new Headers(init.headers);
    headers.set("accept", "application/json");
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    const response = await served.fetch(path, { ...init, method, headers });
    const text = await response.text();
    const isJson = response.headers.get("content-type")?.startsWith("application/json") ?? false;
    return { status: response.status, headers: response.headers, text, body: (isJson && text ? JSON.parse(text) : {}) as ApiBody };
  }
  return {
    call,
    get: (path: string, extra?: Record<string, string>) => call("GET", path, {}, extra),
    post: (path: string, init?: RequestInit) => call("POST", path, init),
    put: (path: string, init?: RequestInit) => call("PUT", path, init),
    delete: (path: string) => call("DELETE", path),
  };
}

export type ApiClient = ReturnType<typeof apiClient>;
