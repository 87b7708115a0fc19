// The examples' shop: its orders live in Tally's SQLite file, written through the app's own
// better-sqlite3 handle, and an order and its Purchase event commit in one transaction of
// that handle (`trx`), or neither does.
import Database from "better-sqlite3";

/** The app's own handle on Tally's database file (open it once Tally has created the file). */
export function openOrders(file) {
  const db = new Database(file);
  db.pragma("busy_timeout = 5000");
  db.exec("create table if not exists orders (id integer primary key, total integer not null)");
  return db;
}

/** Inserts the order and records its Purchase (`visitor`: the request's url, ip and userAgent); answers the order's id. */
export async function placeOrder(tally, db, total, visitor) {
  db.exec("begin");
  try {
    const order = db.prepare("insert into orders (total) values (?)").run(total);
    await tally.record("Purchase", { trx: db, props: { amount: total }, ...visitor });
    db.exec("commit");
    return Number(order.lastInsertRowid);
  } catch (error) {
    db.exec("rollback");
    throw error;
  }
}
