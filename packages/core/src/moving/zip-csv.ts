/** One CSV file of an export: its header and its rows, produced as they are written. */
export interface OutputFile {
  name: string;
  header: readonly string[];
  rows(): AsyncIterable<readonly (string | number)[]>;
}

/** Strings always quoted (`"` doubled), numbers bare: what ClickHouse's CSVWithNames writes and every CSV reader takes. */
export function csvLine(fields: readonly (string | number)[]): string {
  return `${fields.map((field) => (typeof field === "number" ? String(field) : `"${field.replace(/"/g, '""')}"`)).join(",")}\n`;
}

/** Lines are handed to the zip in chunks of about this many characters. */
const CHUNK_CHARS = 64 * 1024;

/**
 * A zip of CSV files, produced chunk by chunk as the rows are read (deflated, streamed:
 * memory stays bounded whatever the export's size). `onRow` is told of every row written.
 */
export async function* zipCsv(files: readonly OutputFile[], onRow: () => void = () => {}): AsyncGenerator<Uint8Array> {
  // Loaded when an export runs: an app that never exports does not hold the compressor.
  const { Zip, ZipDeflate } = await import("fflate");
  const out: Uint8Array[] = [];
  let failure: Error | null = null;
  const zip = new Zip((error, chunk) => {
    if (error) failure = error;
    else out.push(chunk);
  });
  const encoder = new TextEncoder();
  function* drain(): Generator<Uint8Array> {
    if (failure) throw failure;
    while (out.length > 0) yield out.shift()!;
  }
  for (const file of files) {
    const entry = new ZipDeflate(file.name, { level: 6 });
    zip.add(entry);
    let text = csvLine(file.header);
    for await (const row of file.rows()) {
      text += csvLine(row);
      onRow();
      if (text.length >= CHUNK_CHARS) {
        entry.push(encoder.encode(text));
        text = "";
        yield* drain();
      }
    }
    entry.push(encoder.encode(text), true);
    yield* drain();
  }
  zip.end();
  yield* drain();
}
