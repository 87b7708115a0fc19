import type { Readable } from "node:stream";
import type { CsvError } from "csv-parse";
import { TallyError } from "../shared/errors.js";
import { optionalImport } from "../shared/lazy-require.js";

/** A file that cannot be imported as it is: names the file, the line and (when known) the column. */
export class ImportFileError extends TallyError {
  override name = "ImportFileError";
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: string | null,
    readonly reason: string,
  ) {
    super(`${file}, line ${line}${column === null ? "" : `, column ${column}`}: ${reason}`);
  }
}

/** One data row of a CSV file with a header row, read by column name. */
export interface CsvRecord {
  readonly file: string;
  /** The line the row ends on (1 is the header). */
  readonly line: number;
  /** The field of a column ("" when the header has no such column). */
  get(column: string): string;
  /** Throws an ImportFileError naming this row and column. */
  fail(column: string, reason: string): never;
}

export interface CsvFile {
  readonly columns: readonly string[];
  has(column: string): boolean;
  records(): AsyncGenerator<CsvRecord>;
}

function parseError(file: string, error: CsvError): ImportFileError {
  const line = Number(error.lines ?? 0);
  const reason = error.message.replace(/ (at|on) line \d+/, "");
  const column =
    typeof error.column === "number" && error.code !== "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH" ? String(error.column + 1) : null;
  return new ImportFileError(file, line, column, reason);
}

/**
 * Streams a CSV file (RFC 4180 as written by Go's encoding/csv, ClickHouse, PostgreSQL
 * and Excel: quoted or bare fields, `""` escapes, CRLF or LF, a UTF-8 BOM) row by row.
 * The first row names the columns; `required` columns must all be there.
 */
export async function openCsv(file: string, input: Readable, required: readonly string[] = []): Promise<CsvFile> {
  // Loaded when a file is read: an app that never imports does not hold the parser.
  const { CsvError: ParseError, parse } = await optionalImport("csv-parse", () => import("csv-parse"));
  const parser = input.pipe(parse({ bom: true, info: true, skip_empty_lines: true }));
  input.on("error", (error) => parser.destroy(error));
  const iterator = parser[Symbol.asyncIterator]() as AsyncIterator<{ record: string[]; info: { lines: number } }>;
  const next = async () => {
    try {
      return await iterator.next();
    } catch (error) {
      if (error instanceof ParseError) throw parseError(file, error);
      throw error;
    }
  };
  const first = await next();
  if (first.done) throw new ImportFileError(file, 1, null, "the file is empty (a header row was expected)");
  const columns = first.value.record.map((name) => name.trim());
  const index = new Map(columns.map((name, i) => [name, i]));
  const missing = required.filter((name) => !index.has(name));
  if (missing.length > 0) throw new ImportFileError(file, 1, null, `the header lacks ${missing.map((name) => `"${name}"`).join(", ")}`);
  async function* records(): AsyncGenerator<CsvRecord> {
    for (;;) {
      const step = await next();
      if (step.done) return;
      const { record, info } = step.value;
      const line = info.lines;
      yield {
        file,
        line,
        get: (column) => record[index.get(column) ?? -1] ?? "",
        fail(column, reason): never {
          const position = index.get(column);
          throw new ImportFileError(file, line, position === undefined ? column : `${position + 1} (${column})`, reason);
        },
      };
    }
  }
  return { columns, has: (column) => index.has(column), records };
}

/** A whole number of at least 0 (`"42"` and `42` alike); `\N` (ClickHouse's NULL) and "" read as 0 when `empty` allows. */
export function countField(record: CsvRecord, column: string, { empty = false } = {}): number {
  const text = record.get(column).trim();
  if (empty && (text === "" || text === "\\N")) return 0;
  if (!/^\d{1,15}$/.test(text)) record.fail(column, `expected a whole number, got "${text.slice(0, 40)}"`);
  return Number(text);
}
