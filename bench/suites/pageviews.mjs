// What the server-side pageviews middleware costs an app (docs/guide/inside-your-app.md):
// autocannon against an Express and a Fastify app serving an HTML page, each browser-like
// request a pageview; baseline: the same app without the middleware.
//   node bench/suites/pageviews.mjs [--quick] [--duration S] [--connections N]
import { DOMAIN, generateHits } from "../generate.mjs";
import { measure } from "../lib/http-load.mjs";
import { args, log, report, round } from "../lib/measure.mjs";

const opts = args();
const quick = Boolean(opts.quick);
const DURATION = Number(opts.duration ?? (quick ? 3 : 10));
const WARMUP = quick ? 1 : 2;
const CONNECTIONS = Number(opts.connections ?? 50);

// Browser navigations of many visitors (addresses through X-Forwarded-For, trusted by the app).
const visitors = [...generateHits({ hits: 5000, days: 1, pages: 100, visitors: 50_000 })].map((hit) => ({
  host: DOMAIN,
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "accept-language": "en-US,en;q=0.9",
  "sec-fetch-dest": "document",
  "user-agent": hit.userAgent,
  "x-forwarded-for": hit.ip,
}));
let next = 0;
const requests = [
  {
    method: "GET",
    setupRequest(request) {
      const n = next++;
      return { ...request, path: `/pricing/plan-${n % 50}`, headers: { ...request.headers, ...visitors[n % visitors.length] } };
    },
  },
];

// The share of the same app's throughput each framework should keep with the middleware.
const targetRatio = { express: 0.85, fastify: 0.6 };
const figures = [];
for (const [framework, label] of [
  ["express", "Express"],
  ["fastify", "Fastify"],
]) {
  const loadOptions = { connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, requests };
  const plain = await measure(framework, "plain-pages", loadOptions);
  const counted = await measure(framework, "pages", loadOptions);
  log(
    `  ${label}: with the middleware ${Math.round(counted.requestsPerSecond)} req/s (${counted.recorded} pageviews counted), without ${Math.round(plain.requestsPerSecond)} req/s`,
  );
  const ratio = counted.requestsPerSecond / plain.requestsPerSecond;
  figures.push({
    id: `pageviews.${framework}`,
    group: "server-side pageviews",
    name: `GET an HTML page, ${label} with countPageviews (${CONNECTIONS} conn, ${DURATION} s)`,
    value: Math.round(counted.requestsPerSecond),
    unit: "req/s",
    baseline: Math.round(plain.requestsPerSecond),
    baselineLabel: `the same ${label} app without it`,
    ratio: round(ratio, 2),
    ratioLabel: "× baseline",
    target: `≥ ${targetRatio[framework].toFixed(2)}× baseline, all 2xx`,
    met: ratio >= targetRatio[framework] && counted.non2xx === 0 && counted.errors === 0,
    details: { counted, plain, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP },
  });
}
report(figures);
process.exit(0);
