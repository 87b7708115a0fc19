import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { SqlDialect } from "./dialect.js";
import type { Database } from "./schema.js";
import type { Row, SqlRunner } from "./sql-runner.js";

/** `?` → `$1, $2, …` for PostgreSQL (Tally's statements have no `?` but their placeholders). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** A runner on a kysely connection or transaction. */
export function kyselyRunner(db: Kysely<Database> | Transaction<Database>, dialect: SqlDialect): SqlRunner {
  const texts = new Map<string, string>();
  const textOf = (text: string) => {
    if (dialect.name !== "postgres") return text;
    let converted = texts.get(text);
    if (converted === undefined) texts.set(text, (converted = numbered(text)));
    return converted;
  };
  return {
    rowsPerStatement: 500,
    async all(text, params) {
      return (await db.executeQuery<Row>(CompiledQuery.raw(textOf(text), [...params]))).rows;
    },
    async run(text, params) {
      const result = await db.executeQuery(CompiledQuery.raw(textOf(text), [...params]));
      return { changes: Number(result.numAffectedRows ?? 0n), insertId: result.insertId === undefined ? null : Number(result.insertId) };
    },
    async runEach(text, paramLists) {
      let changed = 0;
      for (const params of paramLists)
        changed += Number((await db.executeQuery(CompiledQuery.raw(textOf(text), [...params]))).numAffectedRows ?? 0n);
      return changed;
    },
    async allEach(text, paramLists) {
      const rows: Row[] = [];
      for (const params of paramLists) rows.push(...(await db.executeQuery<Row>(CompiledQuery.raw(textOf(text), [...params]))).rows);
      return rows;
    },
  };
}
