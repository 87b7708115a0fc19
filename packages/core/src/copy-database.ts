import { copyInstallation, openSide, type CopyOptions, type CopyResult } from "./moving/copy.js";
import { openDatabase } from "./open-database.js";
import type { HitsCopyOptions } from "./backends/clickhouse/copy-hits.js";
import type { HitsCopyOutOptions } from "./backends/clickhouse/copy-out.js";

/**
 * `tally copy`: every table of one installation into another database (SQLite ↔
 * PostgreSQL). Here, at the composition root, because only the root knows which backend
 * a URL opens.
 */
export function copyDatabase(options: CopyOptions): Promise<CopyResult> {
  return copyInstallation(options, (url) => openDatabase(url));
}

export interface HitsToClickhouseOptions extends HitsCopyOptions {
  /** The installation whose hits are copied: `file:…` or `postgres://…`. */
  from: string;
  /** ClickHouse: `http(s)://…` or `chdb:PATH`; its table is made when missing. */
  clickhouse: string;
  /** A cluster of the ClickHouse servers (`CLICKHOUSE_CLUSTER`). */
  cluster?: string | undefined;
}

/** `tally copy --to-clickhouse`: every hit of an installation into ClickHouse (docs/clickhouse.md), resumed when run again. */
export async function copyHitsIntoClickhouse(options: HitsToClickhouseOptions): Promise<{ websites: number; rows: number }> {
  // Loaded here: an app that never copies into ClickHouse holds none of its code.
  const [{ connectClickhouse }, { openHitLog }, { copyHitsToClickhouse }] = await Promise.all([
    import("./backends/clickhouse/connect.js"),
    import("./backends/clickhouse/hit-log.js"),
    import("./backends/clickhouse/copy-hits.js"),
  ]);
  const source = await openSide((url) => openDatabase(url), options.from, "source");
  try {
    const client = await connectClickhouse(options.clickhouse);
    const log = await openHitLog(client, { cluster: options.cluster });
    try {
      return await copyHitsToClickhouse(source.db, client, options);
    } finally {
      await log.close();
    }
  } finally {
    await source.close();
  }
}

export interface HitsFromClickhouseOptions extends HitsCopyOutOptions {
  /** ClickHouse: `http(s)://…` or `chdb:PATH`. */
  clickhouse: string;
  /** The installation's own database (`file:…` or `postgres://…`): it has the websites, and no events of theirs yet. */
  to: string;
}

/** `tally copy --from-clickhouse`: every hit in ClickHouse into the installation's database (docs/clickhouse.md), resumed when run again. */
export async function copyHitsFromClickhouse(options: HitsFromClickhouseOptions): Promise<{ websites: number; rows: number }> {
  // Loaded here: an app that never copies out of ClickHouse holds none of its code.
  const [{ connectClickhouse }, { copyHitsIntoDatabase }] = await Promise.all([
    import("./backends/clickhouse/connect.js"),
    import("./backends/clickhouse/copy-out.js"),
  ]);
  const target = await openSide((url) => openDatabase(url), options.to, "source");
  try {
    const writer = target.openWriter();
    try {
      const client = await connectClickhouse(options.clickhouse);
      try {
        return await copyHitsIntoDatabase(client, target.db, writer, options);
      } finally {
        await client.close();
      }
    } finally {
      await writer.close();
    }
  } finally {
    await target.close();
  }
}
