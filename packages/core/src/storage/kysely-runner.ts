import { CompiledQuery, type Kysely, type Transaction } from "kysely";
import type { SqlDialect } from "./dialect.js";
import type { Database } from "./schema.js";
import type { Row, SqlRunner } from "./sql-runner.js";

/** `?` → `$1, $2, …` for PostgreSQL (Tally's statements have no `?` but their placeholders). */
function numbered(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** Writes queued by `hold`: the rows they write, their texts and parameters, in order. */
interface HeldWrites {
  rows: Set<string>;
  texts: string[];
  params: unknown[];
}

/** Held writes as one statement: every write but the last a data-modifying `WITH` clause. */
function heldStatement({ texts }: HeldWrites): string {
  if (texts.length === 1) return texts[0]!;
  const clauses = texts.slice(0, -1).map((text, index) => `held_${index} as (${text})`);
  return `with ${clauses.join(", ")} ${texts[texts.length - 1]!}`;
}

/**
 * A runner on a kysely connection or transaction. With `holdWrites` (a PostgreSQL flush's
 * transaction, which releases before it commits), writes whose answers nobody reads are
 * queued and sent together (SqlRunner.hold).
 */
export function kyselyRunner(
  db: Kysely<Database> | Transaction<Database>,
  dialect: SqlDialect,
  { holdWrites = false }: { holdWrites?: boolean } = {},
): SqlRunner {
  const texts = new Map<string, string>();
  const textOf = (text: string) => {
    if (dialect.name !== "postgres") return text;
    let converted = texts.get(text);
    if (converted === undefined) texts.set(text, (converted = numbered(text)));
    return converted;
  };
  let held: HeldWrites = { rows: new Set(), texts: [], params: [] };
  async function release(): Promise<void> {
    if (held.texts.length === 0) return;
    const writes = held;
    held = { rows: new Set(), texts: [], params: [] };
    await db.executeQuery(CompiledQuery.raw(textOf(heldStatement(writes)), writes.params));
  }
  const runner: SqlRunner = {
    rowsPerStatement: 500,
    async all(text, params) {
      await release();
      return (await db.executeQuery<Row>(CompiledQuery.raw(textOf(text), [...params]))).rows;
    },
    async run(text, params) {
      await release();
      const result = await db.executeQuery(CompiledQuery.raw(textOf(text), [...params]));
      return { changes: Number(result.numAffectedRows ?? 0n), insertId: result.insertId === undefined ? null : Number(result.insertId) };
    },
    async runEach(text, paramLists) {
      await release();
      let changed = 0;
      for (const params of paramLists)
        changed += Number((await db.executeQuery(CompiledQuery.raw(textOf(text), [...params]))).numAffectedRows ?? 0n);
      return changed;
    },
    async allEach(text, paramLists) {
      await release();
      const rows: Row[] = [];
      for (const params of paramLists) rows.push(...(await db.executeQuery<Row>(CompiledQuery.raw(textOf(text), [...params]))).rows);
      return rows;
    },
  };
  if (holdWrites) {
    runner.hold = async (rows, text, params) => {
      if (held.rows.has(rows)) await release();
      held.rows.add(rows);
      held.texts.push(text);
      held.params.push(...params);
    };
    runner.release = release;
  }
  return runner;
}
