// Figure 2: autocannon against POST /collect on node:http, Express and Fastify, each
// server in its own process; baseline: a hello-world /collect of the same framework
// with the same connections, duration and request bodies.
//   node bench/suites/http.mjs [--quick] [--duration S] [--connections N]
import { trackerRequests } from "../generate.mjs";
import { measure } from "../lib/http-load.mjs";
import { args, log, report, round } from "../lib/measure.mjs";

const opts = args();
const quick = Boolean(opts.quick);
const DURATION = Number(opts.duration ?? (quick ? 3 : 10));
const WARMUP = quick ? 1 : 2;
const CONNECTIONS = Number(opts.connections ?? 50);

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

const figures = [];
// The share of the framework's own hello-world each /collect should keep.
const targetRatio = { node: 0.5, express: 0.8, fastify: 0.5 };
for (const [framework, label] of [
  ["node", "node:http"],
  ["express", "Express"],
  ["fastify", "Fastify"],
]) {
  const loadOptions = { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, requests };
  const hello = await measure(framework, "hello", loadOptions);
  const tally = await measure(framework, "tally", loadOptions);
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
    target: `≥ ${targetRatio[framework].toFixed(2)}× baseline, all 2xx`,
    met: ratio >= targetRatio[framework] && tally.non2xx === 0 && tally.errors === 0,
    details: { tally, hello, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP },
  });
}
report(figures);
process.exit(0);
