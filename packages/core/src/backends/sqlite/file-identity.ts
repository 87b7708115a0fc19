import { statSync } from "node:fs";
import { resolve } from "node:path";
import { storeFault, StoreUnavailableError } from "../../storage/store-faults.js";

/**
 * A check that the database file is still the one opened: a process that keeps writing
 * after its file was deleted or replaced writes to an inode nobody will open again (the
 * next start finds an empty database). Throws a StoreUnavailableError (`replaced`).
 */
export function watchFileIdentity(path: string): () => void {
  const absolute = resolve(path);
  const opened = statSync(absolute);
  return () => {
    const now = statSync(absolute, { throwIfNoEntry: false });
    if (now === undefined) throw new StoreUnavailableError(storeFault("replaced", `${absolute} is gone`));
    if (now.ino !== opened.ino || now.dev !== opened.dev)
      throw new StoreUnavailableError(storeFault("replaced", `${absolute} is another file now`));
  };
}
