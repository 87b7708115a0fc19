// A real HTTP server on a port of its own that takes webhooks: every request it answers is kept
// (headers and body as sent); it can go down (the port closed: connections refused) and come back
// up on the same port.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  /** When it arrived (epoch ms). */
  at: number;
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string;
  received: ReceivedWebhook[];
  /** Closes the port: deliveries are refused until `up()`. */
  down(): Promise<void>;
  /** Opens the port again (nothing to do when it is open). */
  up(): Promise<void>;
  /** Resolves once `count` webhooks have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() });
      response.writeHead(204).end();
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const stop = async () => {
    if (!server.listening) return;
    server.closeAllConnections();
    server.close();
    await once(server, "close");
  };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    down: stop,
    async up() {
      if (server.listening) return;
      server.listen(port, "127.0.0.1");
      await once(server, "listening");
    },
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhooks, got ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return received;
    },
    close: stop,
  };
}
