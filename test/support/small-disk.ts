/**
 * A small file system of a test's own (tmpfs), to fill up, free again and make
 * read-only under a running `tally serve`. Mounting needs root (the tests run as root
 * here, in CI too); where it is impossible, `smallDiskUnavailable()` says why.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statfsSync, statSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SmallDisk {
  /** Where it is mounted. */
  path: string;
  /** Writes a filler file until only about `leaveBytes` are free. */
  fill(leaveBytes: number): void;
  /** Deletes the filler. */
  free(): void;
  /** Gives back `bytes` of the filler. */
  shrink(bytes: number): void;
  freeBytes(): number;
  readOnly(): void;
  writable(): void;
  unmount(): void;
}

let checked: string | null | undefined;

/** Why no small disk can be mounted here, or null when one can (tried once). */
export function smallDiskUnavailable(): string | null {
  if (checked !== undefined) return checked;
  if (process.getuid?.() !== 0) return (checked = "mounting a tmpfs needs root");
  try {
    const disk = mountSmallDisk(1);
    disk.unmount();
    checked = null;
  } catch (error) {
    checked = `mounting a tmpfs failed: ${(error as Error).message.split("\n", 1)[0]}`;
  }
  return checked;
}

export function mountSmallDisk(megabytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), "tally-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${megabytes}m`, "tmpfs", path]);
  const filler = join(path, "filler");
  const freeBytes = () => {
    const stats = statfsSync(path);
    return stats.bavail * stats.bsize;
  };
  return {
    path,
    freeBytes,
    fill(leaveBytes) {
      mkdirSync(path, { recursive: true });
      const fd = openSync(filler, "a");
      const block = Buffer.alloc(64 * 1024, 1);
      try {
        while (freeBytes() > leaveBytes + block.length) writeSync(fd, block);
        const rest = freeBytes() - leaveBytes;
        if (rest > 0) writeSync(fd, block, 0, Math.min(rest, block.length));
      } finally {
        closeSync(fd);
      }
    },
    free: () => rmSync(filler, { force: true }),
    shrink: (bytes) => truncateSync(filler, Math.max(0, statSync(filler).size - bytes)),
    readOnly: () => execFileSync("mount", ["-o", "remount,ro", path]),
    writable: () => execFileSync("mount", ["-o", "remount,rw", path]),
    unmount() {
      execFileSync("umount", ["-l", path]);
      rmSync(path, { recursive: true, force: true });
    },
  };
}
