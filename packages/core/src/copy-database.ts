import { copyInstallation, type CopyOptions, type CopyResult } from "./moving/copy.js";
import { openDatabase } from "./open-database.js";

/**
 * `tally copy`: every table of one installation into another database (SQLite ↔
 * PostgreSQL). Here, at the composition root, because only the root knows which backend
 * a URL opens.
 */
export function copyDatabase(options: CopyOptions): Promise<CopyResult> {
  return copyInstallation(options, (url) => openDatabase(url));
}
