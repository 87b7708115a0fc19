import { createReadStream } from "node:fs";
import { mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { HIT_DIMENSIONS, type DimensionValues } from "../model/dimensions.js";
import type { Hit } from "../model/hit.js";
import type { Chunk } from "./write-queue.js";

/**
 * Hits that could not be written before shutdown, kept in a file of the spill folder
 * (NDJSON: a header line, then one line per hit with its batch id) and written at the
 * next start against the same database (its `database_id` is in the file's name). A
 * batch id already recorded by the store is skipped, so a file is written exactly once,
 * even if the process dies between writing it and deleting it.
 */
export interface SpillFolders {
  /** Where spills go: TALLY_SPILL_DIR, else beside the SQLite file, else the OS temp folder. */
  primary: string;
  /** Where they go when the primary folder cannot take them (the same full disk). */
  fallback: string;
}

const SPILL_FORMAT = 1;
const LINES_PER_WRITE = 1000;

/** The OS temp folder's spill folder: the fallback, and the primary one for PostgreSQL. */
export const TEMP_SPILL_FOLDER = join(tmpdir(), "tally-spill");

const fileNamePrefix = (databaseId: string) => `tally-spill-${databaseId}-`;

async function writeSpill(folder: string, databaseId: string, chunks: readonly Chunk[]): Promise<string> {
  await mkdir(folder, { recursive: true });
  const name = `${fileNamePrefix(databaseId)}${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}.ndjson`;
  const path = join(folder, name);
  const partial = `${path}.partial`;
  const hits = chunks.reduce((total, chunk) => total + chunk.hits.length, 0);
  const file = await open(partial, "w", 0o600);
  try {
    const lines = [JSON.stringify({ tally_spill: SPILL_FORMAT, database_id: databaseId, hits })];
    for (const chunk of chunks) {
      for (const hit of chunk.hits) {
        lines.push(JSON.stringify({ batch: chunk.id, hit }));
        if (lines.length >= LINES_PER_WRITE) await file.write(`${lines.splice(0).join("\n")}\n`);
      }
    }
    await file.write(lines.length > 0 ? `${lines.join("\n")}\n` : "");
    await file.sync();
  } catch (error) {
    await file.close();
    await unlink(partial).catch(() => {});
    throw error;
  }
  await file.close();
  // Only a whole file gets its final name: a half-written one is never read back.
  await rename(partial, path);
  return path;
}

/** Writes the chunks to the primary folder, or to the fallback when that fails; answers the file's path. */
export async function spillChunks(folders: SpillFolders, databaseId: string, chunks: readonly Chunk[]): Promise<string> {
  try {
    return await writeSpill(folders.primary, databaseId, chunks);
  } catch (error) {
    if (folders.fallback === folders.primary) throw error;
    return writeSpill(folders.fallback, databaseId, chunks);
  }
}

/** The spill files of this database, oldest first. */
async function spillFiles(folders: SpillFolders, databaseId: string): Promise<string[]> {
  const found: { name: string; path: string }[] = [];
  for (const folder of new Set([folders.primary, folders.fallback])) {
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith(fileNamePrefix(databaseId)) && name.endsWith(".ndjson")) found.push({ name, path: join(folder, name) });
    }
  }
  return found.sort((a, b) => (a.name < b.name ? -1 : 1)).map((file) => file.path);
}

/** A hit as spill files written before the dimension registry hold it: fields, not `values`. */
interface FirstFormatHit extends Omit<Hit, "values" | "visitorHash" | "previousVisitorHash" | "nextVisitorHash"> {
  visitor: string;
  previousVisitor: string | null;
  nextVisitor: string | null;
  event: string | null;
  page: string;
  referrer: string;
  utm: { source: string; medium: string; campaign: string; content: string; term: string };
  browser: string;
  os: string;
  device: string;
  country: string;
  continent: string;
  city: string;
  screen: string;
  language: string;
}

/** Files written before the registry, or before a dimension was added, still replay (kept hits outlive an upgrade). */
function currentHit(hit: Hit | FirstFormatHit): Hit {
  const current = "values" in hit ? hit : registryHit(hit);
  for (const kind of HIT_DIMENSIONS) current.values[kind] ??= "";
  return current;
}

/** The values a hit of the first format had; currentHit gives the kinds added since "". */
function registryHit(hit: FirstFormatHit): Hit {
  const {
    visitor,
    previousVisitor,
    nextVisitor,
    event,
    page,
    referrer,
    utm,
    browser,
    os,
    device,
    country,
    continent,
    city,
    screen,
    language,
    ...rest
  } = hit;
  const values: Partial<DimensionValues> = {
    page,
    referrer,
    browser,
    os,
    device,
    country,
    continent,
    city,
    language,
    resolution: screen,
    event: event ?? "",
    utm_source: utm.source,
    utm_medium: utm.medium,
    utm_campaign: utm.campaign,
    utm_content: utm.content,
    utm_term: utm.term,
  };
  return {
    ...rest,
    visitorHash: visitor,
    previousVisitorHash: previousVisitor,
    nextVisitorHash: nextVisitor,
    values: values as DimensionValues,
  };
}

/** The file's batches, in order. */
async function readSpill(path: string): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
  let header = true;
  for await (const line of lines) {
    if (line === "") continue;
    if (header) {
      const parsed = JSON.parse(line) as { tally_spill?: unknown };
      if (parsed.tally_spill !== SPILL_FORMAT) throw new Error(`${path} is not a spill file Tally can read`);
      header = false;
      continue;
    }
    const { batch, hit } = JSON.parse(line) as { batch: string; hit: Hit | FirstFormatHit };
    const last = chunks.at(-1);
    if (last?.id === batch) last.hits.push(currentHit(hit));
    else chunks.push({ id: batch, hits: [currentHit(hit)] });
  }
  return chunks;
}

/**
 * Writes every spill file of this database through `write` (batch by batch, with their
 * ids) and deletes it; answers how many hits and files. A file that cannot be read or
 * written stays for the next start, and `onError` hears why.
 */
export async function replaySpills(
  folders: SpillFolders,
  databaseId: string,
  write: (hits: readonly Hit[], batchId: string) => Promise<void>,
  onError: (error: unknown) => void,
): Promise<{ hits: number; files: string[] }> {
  const done = { hits: 0, files: [] as string[] };
  for (const path of await spillFiles(folders, databaseId)) {
    try {
      const chunks = await readSpill(path);
      for (const chunk of chunks) await write(chunk.hits, chunk.id);
      await unlink(path).catch(() => {});
      done.hits += chunks.reduce((total, chunk) => total + chunk.hits.length, 0);
      done.files.push(path);
    } catch (error) {
      onError(error);
    }
  }
  return done;
}
