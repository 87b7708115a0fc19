// A purchase: the app's order and Tally's Purchase event in one transaction of the app's
// own better-sqlite3 handle on Tally's database file; both commit or neither.
import Database from "better-sqlite3";
import { visitorOf } from "@tally-analytics/server/next";
import { analytics } from "../../lib/tally.js";

function orders() {
  const db = new Database("data/tally.sqlite");
  db.pragma("busy_timeout = 5000");
  db.exec("create table if not exists orders (id integer primary key, total integer not null)");
  return db;
}

export async function POST(request) {
  const { tally, ready } = analytics();
  await ready;
  const db = (globalThis.orders ??= orders());
  const { total } = await request.json();
  db.exec("begin");
  try {
    const order = db.prepare("insert into orders (total) values (?)").run(total);
    // visitorOf: the page's public URL, the client's address and user agent, as Next.js passes them.
    await tally.record("Purchase", { trx: db, props: { amount: total }, ...visitorOf(request) });
    db.exec("commit");
    return Response.json({ order: Number(order.lastInsertRowid) }, { status: 201 });
  } catch (error) {
    db.exec("rollback");
    throw error;
  }
}
