// The HTTP suites' shared parts: a server of suites/http-server.mjs in its own process
// (so autocannon does not share its event loop), and autocannon's load against it.
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import { forkApp, stopApp } from "./app-process.mjs";

const SERVER = fileURLToPath(new URL("../suites/http-server.mjs", import.meta.url));

export const startServer = (framework, kind) => forkApp(SERVER, ["--framework", framework, "--kind", kind]);

export async function load(port, { connections, duration, requests }) {
  const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections, duration, requests });
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

/** One server warmed up, then loaded for `duration`; answers the load and what the server reported at stop. */
export async function measure(framework, kind, { warmup, ...loadOptions }) {
  const { child, port } = await startServer(framework, kind);
  try {
    await load(port, { ...loadOptions, duration: warmup });
    const result = await load(port, loadOptions);
    const stopped = await stopApp(child);
    return { ...result, recorded: stopped?.recorded ?? null };
  } catch (error) {
    child.kill();
    throw error;
  }
}
