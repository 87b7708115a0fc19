// Footprint: what Tally costs the app it lives in, measured from outside the app's process
// (/proc: resident memory and CPU time of all its threads). The app is a small Express app
// (footprint-app.mjs); the baseline is the same app without Tally.
//   1. idle: RSS with Tally created and mounted, minus the app without it (the median of the
//      second half of IDLE_S seconds: V8 shrinks a heap grown at start-up only once it has
//      been idle for a few seconds, so one early sample says more about timing than size);
//   2. under load (~500 hits/s through POST /analytics/collect for a while): RSS minus the
//      same app serving a hello-world route at that rate, and how much it still grew over
//      the last half of the run;
//   3. process CPU per hit minus that of a hello-world request, as a share of the latter.
//   node bench/suites/footprint.mjs [--quick] [--smoke] [--idle S] [--duration S] [--rate N]
import autocannon from "autocannon";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { trackerRequests } from "../generate.mjs";
import { forkApp, stopApp } from "../lib/app-process.mjs";
import { args, log, report, round } from "../lib/measure.mjs";

const opts = args();
const mode = opts.smoke ? "smoke" : opts.quick ? "quick" : "full";
const IDLE_S = Number(opts.idle ?? { smoke: 2, quick: 16, full: 30 }[mode]);
const LOAD_S = Number(opts.duration ?? { smoke: 2, quick: 20, full: 60 }[mode]);
const RATE = Number(opts.rate ?? 500);
const CONNECTIONS = 10;
const APP = fileURLToPath(new URL("./footprint-app.mjs", import.meta.url));
const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
const MB = 1024 * 1024;

/** Resident memory of a process, all threads, in bytes. */
function rssOf(pid) {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmRSS:\s+(\d+) kB$/m);
  return Number(line?.[1] ?? NaN) * 1024;
}

/** CPU time (user + system) a process has used, all threads, in microseconds. */
function cpuOf(pid) {
  // Fields after the command name (which may hold spaces), from field 3: utime is the 14th field, stime the 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1e6;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Second half of the samples: the figures describe the app once it has settled. */
const lastHalf = (samples) => samples.slice(Math.floor(samples.length / 2));

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const startApp = (tally) => forkApp(APP, ["--tally", tally ? "on" : "off"]);

// Realistic tracker requests (≈5% bots, answered 202 and not counted), cycled.
const hits = trackerRequests();

/** `path` at RATE requests/s for LOAD_S seconds, sampling the app's RSS every second. */
async function loadAt(port, pid, path) {
  let next = 0;
  const samples = [];
  const sampler = setInterval(() => samples.push(rssOf(pid)), 1000);
  const cpuBefore = cpuOf(pid);
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    overallRate: RATE,
    duration: LOAD_S,
    requests: [
      {
        method: "POST",
        path,
        setupRequest(request) {
          const hit = hits[next++ % hits.length];
          return { ...request, body: hit.body, headers: { ...request.headers, ...hit.headers } };
        },
      },
    ],
  });
  clearInterval(sampler);
  const cpu = cpuOf(pid) - cpuBefore;
  samples.push(rssOf(pid));
  // One sample swings by ±20 MB with the garbage collector's timing: the figure is the median
  // of the last half's samples, and its growth compares the medians of that half's first and last thirds.
  const settled = lastHalf(samples);
  const third = Math.max(1, Math.floor(settled.length / 3));
  return {
    // Answered within the run (up to one a connection may still be in flight at its end).
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuPerRequestUs: cpu / Math.max(1, result.requests.total),
    rss: median(settled),
    growthOverLastHalf: settled.length > 1 ? median(settled.slice(-third)) - median(settled.slice(0, third)) : 0,
  };
}

/** One app: its idle RSS, then its figures under load. */
async function measure(tally) {
  const { child, port } = await startApp(tally);
  try {
    const samples = [];
    for (let second = 0; second < IDLE_S; second++) {
      await sleep(1000);
      samples.push(rssOf(child.pid));
    }
    const idle = median(lastHalf(samples));
    const loaded = await loadAt(port, child.pid, tally ? "/analytics/collect" : "/hello");
    const stopped = await stopApp(child);
    return { idle, ...loaded, recorded: stopped?.recorded ?? null };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}

log(`footprint: idle ${IDLE_S} s, then ${LOAD_S} s at ${RATE} requests/s (Express app, SQLite file)`);
const without = await measure(false);
const withTally = await measure(true);
log(
  `  RSS idle: ${round(without.idle / MB, 1)} MB without Tally, ${round(withTally.idle / MB, 1)} MB with; ` +
    `after load: ${round(without.rss / MB, 1)} MB hello-world, ${round(withTally.rss / MB, 1)} MB /collect`,
);
log(
  `  CPU per request: ${round(without.cpuPerRequestUs, 1)} µs hello-world, ${round(withTally.cpuPerRequestUs, 1)} µs /collect; ` +
    `${withTally.requests} hits sent, ${withTally.recorded} counted`,
);
if (withTally.non2xx > 0 || withTally.errors > 0)
  throw new Error(`/collect answered ${withTally.non2xx} non-2xx, ${withTally.errors} errors`);

const idleExtra = (withTally.idle - without.idle) / MB;
const loadExtra = (withTally.rss - without.rss) / MB;
const growth = withTally.growthOverLastHalf / MB;
const cpuExtra = withTally.cpuPerRequestUs - without.cpuPerRequestUs;
const details = {
  idleSeconds: IDLE_S,
  loadSeconds: LOAD_S,
  rate: RATE,
  hitsSent: withTally.requests,
  connections: CONNECTIONS,
  hitsCounted: withTally.recorded,
  helloRequests: without.requests,
};
/** An RSS figure: Tally's app minus the app without it, and their ratio. */
const rssFigure = ({ withBytes, withoutBytes, extra = {}, ...figure }) => ({
  ...figure,
  group: "footprint",
  value: round((withBytes - withoutBytes) / MB, 1),
  unit: "MB",
  baseline: round(withoutBytes / MB, 1),
  ratio: round(withBytes / withoutBytes, 2),
  details: { ...details, ...extra },
});
report([
  rssFigure({
    id: "footprint.idle",
    name: "RSS added to an idle Express app: Tally created and mounted",
    withBytes: withTally.idle,
    withoutBytes: without.idle,
    baselineLabel: "the same app without Tally",
    ratioLabel: "× without",
    target: "≤ +20 MB",
    met: idleExtra <= 20,
  }),
  rssFigure({
    id: "footprint.load",
    name: `RSS added under ~${RATE} hits/s through /collect (vs hello-world at that rate)`,
    withBytes: withTally.rss,
    withoutBytes: without.rss,
    baselineLabel: "the app serving hello-world",
    ratioLabel: "× hello-world",
    target: "≤ +35 MB, flat over the last half",
    met: loadExtra <= 35 && growth <= 2,
    extra: { growthOverLastHalfMB: round(growth, 1) },
  }),
  {
    id: "footprint.cpu",
    group: "footprint",
    name: "process CPU per hit, all threads, beyond a hello-world request's",
    value: round(cpuExtra, 1),
    unit: "µs",
    baseline: round(without.cpuPerRequestUs, 1),
    baselineLabel: "per hello-world request",
    ratio: round(cpuExtra / without.cpuPerRequestUs, 2),
    ratioLabel: "× hello-world",
    target: "≤ 0.3× a hello-world request",
    met: cpuExtra <= 0.3 * without.cpuPerRequestUs,
    details,
  },
]);
process.exit(0);
