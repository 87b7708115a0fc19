import { sql, type Kysely } from "kysely";
import type { Database } from "../storage/schema.js";

/** The values of dictionary ids, 500 a statement; ids without one (0: no value) are left out. */
export async function dictionaryValues(db: Kysely<Database>, ids: readonly number[]): Promise<Map<number, string>> {
  const values = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const part = ids.slice(i, i + 500);
    const { rows } = await sql<{ id: number; value: string }>`select id, value from dimensions where id in (${sql.join(part)})`.execute(db);
    for (const row of rows) values.set(Number(row.id), row.value);
  }
  return values;
}
