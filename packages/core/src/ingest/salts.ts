import * as crypto from "node:crypto";
import type { EngineStore } from "../storage/store.js";

/** How many days a salt is kept: today and yesterday in every time zone. */
const KEEP_DAYS = 3;
const DAY_MS = 86_400_000;

export interface Salts {
  /** The salt of a local day, created (once across every process sharing the store) when first needed. */
  forDay(day: string): Promise<string>;
  /** The salt if it is already loaded; the hot path uses this and falls back to forDay. */
  peek(day: string): string | undefined;
  /** Deletes salts (and visitor rows) too old to be needed again. */
  rotate(now?: number): Promise<void>;
}

/** SHA-256 as base64url; the one-shot `crypto.hash` (Node 20.12 and later) costs half a Hash object's time on a hit's few bytes. */
const sha256: (text: string) => string =
  // A namespace import: a named import of `hash` would fail to load on an older Node 20.
  typeof crypto.hash === "function"
    ? (text) => crypto.hash("sha256", text, "base64url")
    : (text) => crypto.createHash("sha256").update(text).digest("base64url");

export function visitorHash(salt: string, websiteId: number, ip: string, userAgent: string): string {
  return sha256(`${salt}\u0000${websiteId}\u0000${ip}\u0000${userAgent}`).slice(0, 22);
}

export function oldestKeptDay(now: number): string {
  return new Date(now - KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
}

/** Salts cached in memory, stored (and shared with every other process) through the engine store. */
export function createSalts(store: Pick<EngineStore, "salt" | "forgetBefore">): Salts {
  const loaded = new Map<string, string>();
  const pending = new Map<string, Promise<string>>();

  async function load(day: string): Promise<string> {
    const salt = await store.salt(day, crypto.randomBytes(32).toString("base64url"));
    loaded.set(day, salt);
    return salt;
  }

  return {
    peek: (day) => loaded.get(day),
    forDay(day) {
      const known = loaded.get(day);
      if (known !== undefined) return Promise.resolve(known);
      let promise = pending.get(day);
      if (!promise) {
        promise = load(day).finally(() => pending.delete(day));
        pending.set(day, promise);
      }
      return promise;
    },
    async rotate(now = Date.now()) {
      const oldest = oldestKeptDay(now);
      for (const day of loaded.keys()) if (day < oldest) loaded.delete(day);
      await store.forgetBefore(oldest);
    },
  };
}

/** Salts that live in memory only (an import's): random per day, never stored, gone when the import ends. */
export function createMemorySalts(): Salts {
  const salts = new Map<string, string>();
  const forDay = (day: string) => {
    let salt = salts.get(day);
    if (salt === undefined) salts.set(day, (salt = crypto.randomBytes(32).toString("base64url")));
    return salt;
  };
  return {
    peek: forDay,
    forDay: async (day) => forDay(day),
    rotate: async () => {},
  };
}
