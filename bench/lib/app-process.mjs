// An HTTP app in its own process, as the http and footprint suites run one: the app sends
// { port } over IPC when listening; on "stop" it closes (Tally flushes) and answers
// { recorded }, the pageviews and events Tally counted, then exits.
import { fork } from "node:child_process";
import { rmSync } from "node:fs";

/** Starts `script` with `argv`; resolves with the child and the port it listens on. */
export function forkApp(script, argv) {
  return new Promise((resolve, reject) => {
    const child = fork(script, argv, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    child.once("message", (message) => resolve({ child, port: message.port }));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${script} ${argv.join(" ")} exited with ${code}`)));
  });
}

/** Asks the app to stop; resolves with what it answered ({ recorded }), or null. */
export function stopApp(child) {
  return new Promise((resolve) => {
    let result = null;
    child.on("message", (message) => (result = message));
    child.removeAllListeners("exit");
    child.once("exit", () => resolve(result));
    child.send("stop");
  });
}

/**
 * In the app: tells the runner its port, and on "stop" closes the server, counts what
 * Tally recorded over yesterday to tomorrow, closes Tally and removes `dir`.
 */
export function serveRunner({ port, close, tally, site, dir }) {
  process.on("message", async (message) => {
    if (message !== "stop") return;
    // Idle keep-alive sockets would hold server.close() open.
    setTimeout(() => process.exit(0), 5000).unref();
    await close();
    let recorded = null;
    if (tally) {
      const day = (offset) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const query = (name) => tally.stats.query(site.accountId, site.id, { name, from: day(-1), to: day(1), per_page: 100 });
      const sum = (page) => page.data.reduce((total, row) => total + row.count, 0);
      await tally.flush(); // server-side pageviews still waiting for a tracker are counted
      recorded = sum(await query("pageviews")) + sum(await query("event"));
      await tally.close();
    }
    rmSync(dir, { recursive: true, force: true });
    process.send({ recorded }, () => process.exit(0));
  });
  process.send({ port });
}
