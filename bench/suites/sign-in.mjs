// What a flood of sign-ins costs the host app: an Express app answers a hello-world
// `GET /hello` (read from a file, on libuv's thread pool, where scrypt runs too) while a flood of wrong passwords (each from another address, for another
// e-mail, so no per-address or per-e-mail limit stops it) hits Tally's `/analytics/login`
// beside it. Tally checks a few passwords at a time (scrypt, about a second of one core
// each) and refuses the rest at once with a 503. Baseline, in the same run: the same app's
// hello-world throughput beside the same flood of requests that check nothing (`GET
// /analytics/login`, the form): what any traffic costs. For comparison, the sign-in flood
// against checks without a bound; and the hello-world throughput with no flood at all.
//   node bench/suites/sign-in.mjs [--quick] [--duration S] [--connections N] [--flood N]
import { URLSearchParams } from "node:url";
import { load, startServer } from "../lib/http-load.mjs";
import { stopApp } from "../lib/app-process.mjs";
import { args, log, report, round } from "../lib/measure.mjs";

const opts = args();
const quick = Boolean(opts.quick);
const DURATION = Number(opts.duration ?? (quick ? 5 : 15));
const CONNECTIONS = Number(opts.connections ?? 10);
const FLOOD = Number(opts.flood ?? 50);

const hello = [{ method: "GET", path: "/hello" }];

/** Wrong passwords for ever new e-mails from ever new addresses. */
function flood(port) {
  let n = 0;
  return [
    {
      method: "POST",
      path: "/analytics/login",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: `http://127.0.0.1:${port}` },
      setupRequest(request) {
        n++;
        const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
        const body = new URLSearchParams({ email: `flood-${n}@bench.test`, password: `not the password ${n}` }).toString();
        return { ...request, body, headers: { ...request.headers, "x-forwarded-for": address } };
      },
    },
  ];
}

/** The form itself, which checks nothing: traffic as cheap as Tally's pages get. */
const formPages = [{ method: "GET", path: "/analytics/login" }];

/** Hello-world throughput beside `requests` on FLOOD connections. */
async function beside(port, requests) {
  const [answered, flooded] = await Promise.all([
    load(port, { connections: CONNECTIONS, duration: DURATION, requests: hello }),
    load(port, { connections: FLOOD, duration: DURATION, requests }),
  ]);
  return { answered, flooded };
}

/** Hello-world throughput of one server alone, beside a flood of form pages, and beside a flood of sign-ins. */
async function measureServer(kind) {
  const { child, port } = await startServer("express", kind);
  try {
    await load(port, { connections: CONNECTIONS, duration: 1, requests: hello });
    const alone = await load(port, { connections: CONNECTIONS, duration: DURATION, requests: hello });
    const pages = await beside(port, formPages);
    const signIns = await beside(port, flood(port));
    await stopApp(child);
    return { alone, pages, signIns };
  } catch (error) {
    child.kill();
    throw error;
  }
}

const figures = [];
const bounded = await measureServer("sign-in");
const unbounded = await measureServer("sign-in-unbounded");
const summary = ({ requestsPerSecond, statusCodes, latencyP50, latencyP99 }) => ({
  requestsPerSecond,
  statusCodes,
  latencyP50,
  latencyP99,
});
for (const [id, label, run] of [
  ["sign-in.flood", "bounded checks", bounded],
  ["sign-in.flood-unbounded", "checks without a bound (informative)", unbounded],
]) {
  const { answered } = run.signIns;
  const ratio = answered.requestsPerSecond / run.pages.answered.requestsPerSecond;
  log(
    `  ${label}: GET /hello ${Math.round(answered.requestsPerSecond)} req/s beside the sign-ins (answered ${JSON.stringify(run.signIns.flooded.statusCodes)}), ${Math.round(run.pages.answered.requestsPerSecond)} beside form pages, ${Math.round(run.alone.requestsPerSecond)} alone`,
  );
  figures.push({
    id,
    group: "sign-in flood",
    name: `GET /hello beside ${FLOOD} connections of wrong sign-ins, ${label} (${CONNECTIONS} conn, ${DURATION} s)`,
    value: Math.round(answered.requestsPerSecond),
    unit: "req/s",
    baseline: Math.round(run.pages.answered.requestsPerSecond),
    baselineLabel: `the same app's GET /hello beside ${FLOOD} connections of GET /analytics/login (the form, no check)`,
    ratio: round(ratio, 2),
    ratioLabel: "× baseline",
    ...(id === "sign-in.flood"
      ? { target: "≥ 0.50× baseline, all 2xx", met: ratio >= 0.5 && answered.non2xx === 0 && answered.errors === 0 }
      : {}),
    details: {
      alone: summary(run.alone),
      besideFormPages: { hello: summary(run.pages.answered), pages: summary(run.pages.flooded) },
      besideSignIns: { hello: summary(answered), signIns: summary(run.signIns.flooded) },
      connections: CONNECTIONS,
      flood: FLOOD,
      duration: DURATION,
    },
  });
}
report(figures);
process.exit(0);
