import { createAccounts, type Accounts } from "./accounts/accounts.js";
import { migrateToLatest } from "./database/migrations.js";
import { openDatabase, type DatabaseOption } from "./database/open-database.js";
import { deferMethods } from "./deferred.js";
import { createWebsites, type Websites } from "./websites/websites.js";

/** Which proxies may set the client IP: none, all, the nearest N hops, or these CIDRs. */
export type TrustProxy = boolean | number | string[];

export interface TallyOptions {
  /**
   * Where data lives.
   * @default "file:./data/tally.sqlite"
   */
  database?: DatabaseOption;
  /**
   * Whether X-Forwarded-For / Forwarded may name the client IP.
   * @default false
   */
  trustProxy?: TrustProxy;
  /** Path of a GeoLite2 or DB-IP `.mmdb` (country or city) for country/continent/city statistics. */
  geoip?: string;
  /**
   * How often buffered hits are written, in milliseconds.
   * @default 1000
   */
  flushIntervalMs?: number;
}

export interface Tally {
  readonly options: Readonly<TallyOptions>;
  readonly accounts: Accounts;
  readonly websites: Websites;
  /** Resolves once the store is open and migrated; rejects if it cannot be. */
  ready(): Promise<void>;
  /** Flushes everything buffered and closes what Tally opened. */
  close(): Promise<void>;
}

interface Services {
  accounts: Accounts;
  websites: Websites;
  close(): Promise<void>;
}

async function openServices(options: TallyOptions): Promise<Services> {
  const store = await openDatabase(options.database ?? "file:./data/tally.sqlite");
  try {
    await migrateToLatest(store.db, store.dialect);
  } catch (error) {
    await store.close();
    throw error;
  }
  return {
    accounts: createAccounts(store.db),
    websites: createWebsites(store.db),
    close: () => store.close(),
  };
}

/**
 * Returns the in-process API at once; the store opens and migrates in the background
 * and every call waits for it (`await tally.ready()` to surface an open error early).
 */
export function createTally(options: TallyOptions = {}): Tally {
  const services = openServices(options);
  services.catch(() => {}); // reported through ready() and every call, never as unhandled
  let closing: Promise<void> | null = null;
  return {
    options,
    accounts: deferMethods(services.then((s) => s.accounts)),
    websites: deferMethods(services.then((s) => s.websites)),
    ready: async () => {
      await services;
    },
    close() {
      closing ??= services.then(
        (s) => s.close(),
        () => {},
      );
      return closing;
    },
  };
}
