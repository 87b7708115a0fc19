import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { Transform, type Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type yauzl from "yauzl";
import { TallyError } from "../shared/errors.js";
import { optionalImport } from "../shared/lazy-require.js";

/** One file to read: plain, gzipped, inside a zip, or in a directory. */
export interface InputEntry {
  /** Its name without any directory (`imported_pages_20240101_20240131.csv`). */
  readonly name: string;
  /** Bytes it takes in the input (compressed size inside a zip): what progress counts. */
  readonly size: number;
  /** Its content, decompressed; every byte read (as stored) is added to `counter`. */
  open(counter: ByteCounter): Promise<Readable>;
}

export interface ByteCounter {
  bytes: number;
}

export interface ImportInput {
  readonly path: string;
  readonly entries: readonly InputEntry[];
  readonly totalBytes: number;
  /** SHA-256 of the input's bytes (a directory's files in name order), hex. */
  contentHash(): Promise<string>;
  close(): Promise<void>;
}

/** Counts the bytes going through, scaled (a zip entry is counted in compressed bytes as it inflates). */
function counting(counter: ByteCounter, scale = 1): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counter.bytes += chunk.length * scale;
      done(null, chunk);
    },
  });
}

function fileEntry(path: string, size: number): InputEntry {
  const gzipped = path.endsWith(".gz");
  return {
    name: basename(path).replace(/\.gz$/, ""),
    size,
    async open(counter) {
      const raw = createReadStream(path).pipe(counting(counter));
      if (!gzipped) return raw;
      const out = raw.pipe(createGunzip());
      raw.on("error", (error) => out.destroy(error));
      return out;
    },
  };
}

async function hashFiles(paths: readonly string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const path of paths) for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** yauzl is loaded when a zip is opened: an app that never imports does not hold it. */
async function openZip(path: string): Promise<yauzl.ZipFile> {
  const { default: yauzl } = await optionalImport("yauzl", () => import("yauzl"));
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: true }, (error, zip) => (error ? reject(error) : resolve(zip)));
  });
}

async function zipEntries(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  const entries: yauzl.Entry[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith("/") && !basename(entry.fileName).startsWith(".") && !entry.fileName.startsWith("__MACOSX/"))
        entries.push(entry);
      zip.readEntry();
    });
    zip.once("end", () => resolve());
    zip.once("error", reject);
    zip.readEntry();
  });
  return entries;
}

function zipEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): InputEntry {
  const scale = entry.uncompressedSize === 0 ? 0 : entry.compressedSize / entry.uncompressedSize;
  return {
    name: basename(entry.fileName),
    size: entry.compressedSize,
    open: (counter) =>
      new Promise((resolve, reject) => {
        zip.openReadStream(entry, (error, stream) => {
          if (error) return reject(error);
          const out = stream.pipe(counting(counter, scale));
          stream.on("error", (streamError) => out.destroy(streamError));
          resolve(out);
        });
      }),
  };
}

/**
 * What `tally import FILE` reads: a `.zip` (Plausible's export, Umami's tables, Tally's
 * own export), a `.csv.gz` or `.csv` (GoatCounter, Umami's website_event.csv), or a
 * directory of CSV files. A CSV file beside which Umami's session.csv and event_data.csv
 * lie is read with them.
 */
export async function openInput(path: string): Promise<ImportInput> {
  const info = await stat(path).catch(() => null);
  if (!info) throw new TallyError(`${path}: no such file or directory`);
  if (info.isDirectory() || /^website_event\.csv(\.gz)?$/.test(basename(path))) {
    const directory = info.isDirectory() ? path : join(path, "..");
    const names = (await readdir(directory)).filter((name) => /\.csv(\.gz)?$/.test(name)).sort();
    const chosen = info.isDirectory()
      ? names
      : names.filter((name) => name === basename(path) || /^(session|event_data)\.csv(\.gz)?$/.test(name));
    const paths = chosen.map((name) => join(directory, name));
    const entries = await Promise.all(paths.map(async (file) => fileEntry(file, (await stat(file)).size)));
    return { path, entries, totalBytes: sum(entries), contentHash: () => hashFiles(paths), close: async () => {} };
  }
  if (path.endsWith(".zip")) {
    let zip: yauzl.ZipFile;
    try {
      zip = await openZip(path);
    } catch (error) {
      throw new TallyError(`${path}: not a readable zip file (${error instanceof Error ? error.message : String(error)})`);
    }
    const entries = (await zipEntries(zip)).map((entry) => zipEntry(zip, entry));
    return { path, entries, totalBytes: sum(entries), contentHash: () => hashFiles([path]), close: async () => zip.close() };
  }
  const entries = [fileEntry(path, info.size)];
  return { path, entries, totalBytes: info.size, contentHash: () => hashFiles([path]), close: async () => {} };
}

const sum = (entries: readonly InputEntry[]) => entries.reduce((total, entry) => total + entry.size, 0);
