/**
 * Slow and vanishing clients.
 * - `tally serve` bounds how long a client may take to send a request (node's defaults
 *   let a /collect body trickled at a byte every few seconds hold its socket ~300 s):
 *   headers within 5 s, the whole request within 10 s, checked every second; past that
 *   a JSON 408 and the socket is closed. Embedding apps get the same from
 *   `limitSlowClients(server)`.
 * - An upload the client aborts (or that is cut for being slow) is a 400, or no answer
 *   at all: never an unexpected error reported as a 500.
 */
import { once } from "node:events";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { limitSlowClients, toNodeHandler } from "@tally-analytics/server/node";
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";
import { transports } from "../support/transports.js";
import { killAllChildren, spawnServe, tempDirectory } from "./support.js";

const HIT = '{"u":"https://slow.example/"}';

/** Sends `head`, then one byte of `trickle` every `everyMs`; resolves with what came back and when the server closed. */
function trickle(port: number, head: string, trickled: string, everyMs: number): Promise<{ closedAfterMs: number; reply: string }> {
  return new Promise((resolve) => {
    const began = performance.now();
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < trickled.length && socket.writable) socket.write(trickled[sent++]!);
    }, everyMs);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      resolve({ closedAfterMs: performance.now() - began, reply: Buffer.concat(chunks).toString("utf8") });
    });
    socket.write(head);
  });
}

/** Starts a request with a body that never arrives in full, then vanishes. */
async function abortUpload(port: number, path: string): Promise<void> {
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await once(socket, "connect");
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: slow.example\r\nContent-Type: text/plain\r\nContent-Length: 4000\r\n\r\n${HIT.slice(0, 10)}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 150));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 150));
}

const tallyReports = (spy: MockInstance) => spy.mock.calls.filter((call) => String(call[0]).startsWith("[tally]"));

describe("slow clients", () => {
  const fixture = createTempTally();
  let consoleError: MockInstance;
  beforeEach(() => {
    consoleError = vi.spyOn(console, "error");
  });
  afterEach(() => consoleError.mockRestore());
  afterAll(async () => {
    killAllChildren();
    await fixture.dispose();
  });

  it(
    "tally serve: a trickled /collect body, or trickled headers, get a JSON 408 and the socket closed within seconds (node's default: 300 s)",
    { timeout: 60_000 },
    async () => {
      const dir = tempDirectory("tally-slow-");
      try {
        const server = await spawnServe({ DATABASE_URL: `file:${dir.path}/tally.sqlite` });
        const head = `POST /collect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${HIT.length}\r\n\r\n`;
        const [body, headers] = await Promise.all([
          trickle(server.port, head, HIT, 1000),
          trickle(
            server.port,
            "POST /collect HTTP/1.1\r\n",
            `Host: 127.0.0.1\r\nContent-Type: text/plain\r\nX-Padding: ${"x".repeat(40)}\r\n`,
            1000,
          ),
        ]);
        console.log(
          `[slow] body trickle closed after ${Math.round(body.closedAfterMs)} ms, header trickle after ${Math.round(headers.closedAfterMs)} ms`,
        );
        for (const { closedAfterMs, reply } of [body, headers]) {
          expect(closedAfterMs).toBeLessThan(25_000);
          expect(reply).toMatch(/^HTTP\/1\.1 408 /);
          expect(reply).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
          expect(reply.slice(reply.indexOf("\r\n\r\n") + 4)).toBe(JSON.stringify({ message: "Request Timeout.", status: 408 }));
        }
        // The cut was the client's doing: nothing was reported as a server error.
        await server.stop();
        expect(server.output.stderr).not.toMatch(/failed|500/);
      } finally {
        dir.remove();
      }
    },
  );

  it("limitSlowClients(server) gives an embedding node:http server the same bounds", { timeout: 30_000 }, async () => {
    const onError = vi.fn();
    const server = limitSlowClients(createServer(toNodeHandler(fixture.tally, { onError })), {
      headersTimeoutMs: 300,
      requestTimeoutMs: 600,
      checkIntervalMs: 100,
    });
    expect([server.headersTimeout, server.requestTimeout]).toEqual([300, 600]);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const head = `POST /collect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: ${HIT.length}\r\n\r\n`;
      const cut = await trickle(port, head, HIT, 200);
      expect(cut.reply).toMatch(/^HTTP\/1\.1 408 /);
      expect(cut.closedAfterMs).toBeLessThan(HIT.length * 200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(onError).not.toHaveBeenCalled();
      expect(tallyReports(consoleError)).toEqual([]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it.each(transports.filter((t) => t.name !== "fetch handler"))(
    "an aborted upload through $name is no server error (/collect and the API)",
    async (transport) => {
      const onError = vi.fn();
      const served = await transport.serve(fixture.tally, { onError });
      try {
        const url = new URL(served.base);
        for (const path of ["/collect", "/api/v1/websites"])
          await abortUpload(Number(url.port), `${url.pathname.replace(/\/$/, "")}${path}`);
        expect(onError).not.toHaveBeenCalled();
        expect(tallyReports(consoleError)).toEqual([]);
        // And the server serves on.
        expect((await served.fetch("/script.js")).status).toBe(200);
      } finally {
        await served.close();
      }
    },
  );

  it("the fetch handler: a body stream that breaks off is a 400 JSON, not a 500", async () => {
    const onError = vi.fn();
    const served = await transports.find((t) => t.name === "fetch handler")!.serve(fixture.tally, { onError });
    const { key } = await fixture.tally.accounts.create();
    for (const path of ["/collect", "/api/v1/websites"]) {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(HIT.slice(0, 10)));
          controller.error(new Error("aborted"));
        },
      });
      const response = await served.fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body,
        duplex: "half",
      } as RequestInit);
      expect(await response.json(), path).toEqual({ message: "The request body could not be read.", status: 400 });
    }
    expect(onError).not.toHaveBeenCalled();
    expect(tallyReports(consoleError)).toEqual([]);
  });
});
