/**
 * SQLite on a small or full disk. The WAL grows to about 16 MB between checkpoints and
 * would keep that size; `journal_size_limit` cuts it back after each checkpoint. Once a
 * write was refused for lack of space, every later request first tries a truncating
 * checkpoint: as soon as some space is freed, it moves the WAL's pages into the database
 * (which needs far less room than the WAL held) and gives the WAL's space back, instead
 * of letting the WAL eat the freed space and fail again.
 */
export const WAL_SIZE_LIMIT = 1024 * 1024;

/**
 * The writer's checkpoint cadence, in WAL pages (SQLite's default: 1,000). A checkpoint copies
 * each distinct page of the WAL into the database once, and a flush rewrites mostly the same
 * pages (the current day's rollup rows, the newest visits and hits): at 4,000 pages a
 * checkpoint spans ~17 flushes of the ingest bench instead of ~4, and checkpoints write 30% fewer bytes
 * (docs/performance.md). Durability is the same: a commit is in the WAL either way.
 */
export const WAL_CHECKPOINT_PAGES = 4000;

interface Pragmas {
  pragma(source: string): unknown;
}

function releaseWalSpace(database: Pragmas): void {
  try {
    database.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    // The disk still full, or a reader holding the WAL: the next request tries again.
  }
}

/** Wraps each request of the writer: checkpoints after a full disk until a request works again. */
export function createTightDiskGuard(database: Pragmas) {
  let full = false;
  return {
    before(): void {
      if (full) releaseWalSpace(database);
    },
    failed(code: unknown): void {
      if (code !== "SQLITE_FULL") return;
      full = true;
      releaseWalSpace(database);
    },
    succeeded(): void {
      full = false;
    },
  };
}
