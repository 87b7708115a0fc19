// Figure 2: autocannon against POST /collect on node:http, Express and Fastify, each
// server in its own process; baseline: a hello-world /collect of the same framework
// with the same connections, duration and request bodies.
//   node bench/suites/http.mjs [--quick] [--duration S] [--connections N]
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import { trackerRequests } from "../generate.mjs";
import { forkApp, stopApp } from "../lib/app-process.mjs";
import { args, log, report, round } from "../lib/measure.mjs";

const opts = args();
const quick = Boolean(opts.quick);
const DURATION = Number(opts.duration ?? (quick ? 3 : 10));
const WARMUP = quick ? 1 : 2;
const CONNECTIONS = Number(opts.connections ?? 50);
const SERVER = fileURLToPath(new URL("./http-server.mjs", import.meta.url));

// 5,000 realistic hits (≈5% bots, which Tally answers 202 + X-Tally-Dropped), cycled.
const pool = trackerRequests();
let next = 0;
const requests = [
  {
    method: "POST",
    path: "/collect",
    setupRequest(request) {
      const hit = pool[next++ % pool.length];
      return { ...request, body: hit.body, headers: { ...request.headers, ...hit.headers } };
    },
  },
];

const startServer = (framework, kind) => forkApp(SERVER, ["--framework", framework, "--kind", kind]);

async function load(port, duration) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections: CONNECTIONS, duration, requests });
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    statusCodes: result.statusCodeStats,
  };
}

async function measure(framework, kind) {
  const { child, port } = await startServer(framework, kind);
  try {
    await load(port, WARMUP);
    const result = await load(port, DURATION);
    const stopped = await stopApp(child);
    return { ...result, recorded: stopped?.recorded ?? null };
  } catch (error) {
    child.kill();
    throw error;
  }
}

const figures = [];
for (const [framework, label] of [
  ["node", "node:http"],
  ["express", "Express"],
  ["fastify", "Fastify"],
]) {
  const hello = await measure(framework, "hello");
  const tally = await measure(framework, "tally");
  log(
    `  ${label}: tally ${Math.round(tally.requestsPerSecond)} req/s (non-2xx ${tally.non2xx}, errors ${tally.errors}), hello ${Math.round(hello.requestsPerSecond)} req/s`,
  );
  const ratio = tally.requestsPerSecond / hello.requestsPerSecond;
  figures.push({
    id: `http.${framework}`,
    group: "ingest HTTP",
    name: `POST /collect, ${label} (${CONNECTIONS} conn, ${DURATION} s)`,
    value: Math.round(tally.requestsPerSecond),
    unit: "req/s",
    baseline: Math.round(hello.requestsPerSecond),
    baselineLabel: `hello-world ${label}`,
    ratio: round(ratio, 2),
    ratioLabel: "× baseline",
    target: "≥ 0.70× baseline, all 2xx",
    met: ratio >= 0.7 && tally.non2xx === 0 && tally.errors === 0,
    details: { tally, hello, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP },
  });
}
report(figures);
process.exit(0);
