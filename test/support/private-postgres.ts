/**
 * A PostgreSQL server of a test's own: a new cluster in a temporary folder, on a free
 * port, that the test may stop, restart and kill at will without touching the shared
 * server (127.0.0.1:5432) that every other test uses. Debian's binaries run it as the
 * `postgres` user (the tests run as root here, in CI too). Where that is impossible,
 * `privatePostgresUnavailable()` says why (and CI, which must run these tests, fails).
 */
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: running transactions are rolled back, connections cut. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** Stops it (immediately) and deletes its folder. */
  dispose(): Promise<void>;
}

/** Debian installs one folder per major version. */
function binaries(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const version = readdirSync(root).sort().at(-1);
  const bin = version === undefined ? null : join(root, version, "bin");
  return bin !== null && existsSync(join(bin, "pg_ctl")) ? bin : null;
}

/** Why no private cluster can run here, or null when one can. */
export function privatePostgresUnavailable(): string | null {
  if (binaries() === null) return "PostgreSQL's server binaries (/usr/lib/postgresql/*/bin) are not installed";
  if (process.getuid?.() !== 0) return "starting a private PostgreSQL cluster needs root (to run it as the postgres user)";
  if (!existsSync("/usr/sbin/runuser") && !existsSync("/sbin/runuser")) return "runuser is missing";
  return null;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Creates and starts a cluster; it answers on 127.0.0.1 only. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binaries();
  if (bin === null) throw new Error(privatePostgresUnavailable() ?? "no PostgreSQL");
  const folder = mkdtempSync(join(tmpdir(), "tally-pg-"));
  const data = join(folder, "data");
  const { stdout } = await run("id", ["-u", "postgres"]);
  const uid = Number(stdout.trim());
  chownSync(folder, uid, uid);
  const asPostgres = (program: string, args: readonly string[]) =>
    run("runuser", ["-u", "postgres", "--", join(bin, program), ...args], { cwd: folder });
  await asPostgres("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const pgCtl = (...args: string[]) => asPostgres("pg_ctl", ["-D", data, "-l", join(folder, "log"), "-w", "-t", "60", ...args]);
  await pgCtl("-o", options, "start");
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop: async () => {
      await pgCtl("-m", "fast", "stop");
    },
    start: async () => {
      await pgCtl("-o", options, "start");
    },
    restart: async () => {
      await pgCtl("-m", "fast", "-o", options, "restart");
    },
    async dispose() {
      await pgCtl("-m", "immediate", "stop").catch(() => {});
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
