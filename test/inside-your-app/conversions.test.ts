// Conversions in the app's own transaction (docs/guide/inside-your-app.md): an order and its
// Purchase event commit or roll back together, on SQLite (the app's own better-sqlite3
// handle on Tally's file, and a Kysely transaction) and on PostgreSQL (a pg client, and a
// Kysely transaction), and the browser's same event is not counted a second time.
import Database from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import type { AppTransaction, TypedTally } from "@tally-analytics/core";
import { recorded } from "@tally-analytics/core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DIALECTS, type DialectName } from "../support/databases.js";
import { createTestTally, type TestTally } from "../support/tally-fixture.js";

type Events = { Purchase: { amount: number } };

const VISITOR = {
  url: "https://shop.example/checkout",
  ip: "198.51.100.23",
  userAgent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
};

/** The app's own connection to Tally's database, and a transaction on it the two ways an app may hold one. */
interface AppDatabase {
  /** Runs `body` in a transaction of the app's: committed unless it throws. */
  transaction(body: (trx: AppTransaction, insertOrder: (total: number) => Promise<void>) => Promise<void>): Promise<void>;
  orders(): Promise<number>;
  close(): Promise<void>;
}

class Rollback extends Error {}

/** A plain handle (better-sqlite3 or pg) with BEGIN and COMMIT of its own. */
function plainHandle(dialect: DialectName, url: string): AppDatabase {
  if (dialect === "sqlite") {
    const db = new Database(url.replace(/^file:/, ""));
    db.pragma("busy_timeout = 5000");
    db.exec("create table if not exists orders (id integer primary key, total integer not null)");
    return {
      async transaction(body) {
        db.exec("begin");
        try {
          await body(db, async (total) => void db.prepare("insert into orders (total) values (?)").run(total));
          db.exec("commit");
        } catch (error) {
          db.exec("rollback");
          if (!(error instanceof Rollback)) throw error;
        }
      },
      orders: async () => (db.prepare("select count(*) as n from orders").get() as { n: number }).n,
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  const connected = client
    .connect()
    .then(() => client.query("create table if not exists orders (id serial primary key, total integer not null)"));
  return {
    async transaction(body) {
      await connected;
      await client.query("begin");
      try {
        await body(client, async (total) => void (await client.query("insert into orders (total) values ($1)", [total])));
        await client.query("commit");
      } catch (error) {
        await client.query("rollback");
        if (!(error instanceof Rollback)) throw error;
      }
    },
    orders: async () => {
      await connected;
      return Number((await client.query("select count(*) as n from orders")).rows[0].n);
    },
    // The table may still be in the making when a test never used the app's side: wait for it first.
    close: async () => {
      await connected.catch(() => {});
      await client.end();
    },
  };
}

/** A Kysely of the app's, whose `transaction().execute` rolls back when its body throws. */
function kyselyOf(dialect: DialectName, url: string): AppDatabase {
  const db = new Kysely<{ orders: { id: number; total: number } }>({
    dialect:
      dialect === "sqlite"
        ? new SqliteDialect({ database: new Database(url.replace(/^file:/, "")) })
        : new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 2 }) }),
  });
  const ready =
    sql`create table if not exists orders (id ${sql.raw(dialect === "sqlite" ? "integer primary key" : "serial primary key")}, total integer not null)`.execute(
      db,
    );
  return {
    async transaction(body) {
      await ready;
      await db
        .transaction()
        .execute((trx) => body(trx, async (total) => void (await trx.insertInto("orders").values({ total }).execute())))
        .catch((error: unknown) => {
          if (!(error instanceof Rollback)) throw error;
        });
    },
    orders: async () => {
      await ready;
      return Number(
        (
          await db
            .selectFrom("orders")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    },
    close: async () => {
      await ready.catch(() => {});
      await db.destroy();
    },
  };
}

const HANDLES = { "its own handle": plainHandle, "a Kysely transaction": kyselyOf };

describe.each(DIALECTS)("conversions in the app's transaction on %s", (dialect) => {
  for (const [handle, open] of Object.entries(HANDLES)) {
    describe(`through ${handle}`, () => {
      let stored: TestTally;
      let app: AppDatabase;

      beforeEach(async () => {
        stored = await createTestTally(dialect, { flushIntervalMs: 100 });
        const { accountId } = await stored.tally.accounts.create({ name: "shop" });
        await stored.tally.websites.create(accountId, { domain: "shop.example" });
        app = open(dialect, stored.url);
        // The visitor saw the checkout page first (on SQLite this also writes the day's salt
        // before the app holds the one write lock: docs/statistics.md, "Conversions").
        await stored.tally.collect(VISITOR);
      });

      afterEach(async () => {
        await app.close();
        await stored.dispose();
      });

      const tally = () => stored.tally as unknown as TypedTally<Events>;

      it("a rolled-back order leaves no event", async () => {
        await app.transaction(async (trx, insertOrder) => {
          await insertOrder(120);
          expect(await tally().record("Purchase", { ...VISITOR, props: { amount: 120 }, trx })).toEqual({ status: "accepted" });
          throw new Rollback();
        });
        expect(await app.orders()).toBe(0);
        expect(await recorded(stored.tally, "shop.example")).toEqual({});
        expect(await recorded(stored.tally, "shop.example", "pageviews")).toEqual({ [new Date().toISOString().slice(0, 10)]: 1 });
      });

      it("a committed order is counted exactly once, also when the browser fires the same event", async () => {
        await app.transaction(async (trx, insertOrder) => {
          await insertOrder(80);
          await tally().record("Purchase", { ...VISITOR, props: { amount: 80 }, trx });
        });
        expect(await app.orders()).toBe(1);
        // The confirmation page's tracker sends the same event.
        expect(await stored.tally.collect({ ...VISITOR, event: "Purchase", props: { amount: 80 } })).toEqual({
          status: "dropped",
          reason: "counted",
        });
        expect(await recorded(stored.tally, "shop.example")).toEqual({ Purchase: 1 });
        expect(await recorded(stored.tally, "shop.example", "event_property", { event: "Purchase", property: "amount" })).toEqual({
          "80": 1,
        });
        // Moved out of the outbox once counted: a later flush counts nothing again.
        expect(await stored.sql("select id from tally_outbox")).toEqual([]);
        expect(await recorded(stored.tally, "shop.example")).toEqual({ Purchase: 1 });
      });

      it("counts another visitor's browser event as usual", async () => {
        const other = { ...VISITOR, ip: "203.0.113.9" };
        expect(await stored.tally.collect({ ...other, event: "Purchase", props: { amount: 5 } })).toEqual({ status: "accepted" });
        expect(await recorded(stored.tally, "shop.example")).toEqual({ Purchase: 1 });
      });
    });
  }
});
