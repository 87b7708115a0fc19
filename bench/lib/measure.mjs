// Small helpers shared by the suites.
import { fork } from "node:child_process";

export function percentile(samples, p) {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export const round = (n, digits = 2) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n);

export const log = (message) => process.stderr.write(`${message}\n`);

/** Parses `--key value` / `--flag` arguments. */
export function args(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const [key, inline] = a.slice(2).split("=", 2);
    if (inline !== undefined) out[key] = inline;
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith("--")) out[key] = argv[++i];
    else out[key] = true;
  }
  return out;
}

/** In a suite: hands its figures to the runner (or prints them when run alone). */
export function report(figures) {
  if (process.send) process.send({ figures });
  else console.log(JSON.stringify(figures, null, 2));
}

/** In the runner: runs a suite in its own process and collects what it reports. */
export function runSuite(script, argv = [], { execArgv = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(script, argv, { execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const figures = [];
    child.on("message", (message) => {
      if (message && Array.isArray(message.figures)) figures.push(...message.figures);
    });
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      if (code === 0) resolve(figures);
      else reject(new Error(`${script} exited with ${code ?? signal}`));
    });
  });
}
