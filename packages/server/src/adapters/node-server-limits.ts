import type { Server } from "node:http";

export interface SlowClientLimits {
  /**
   * Time allowed to receive a request's headers, in milliseconds.
   * @default 5000
   */
  headersTimeoutMs?: number;
  /**
   * Time allowed to receive a whole request, headers and body, in milliseconds. Tally's
   * bodies are small (a hit at most 16 KiB, an API body 64 KiB): a client slower than
   * this is trickling on purpose.
   * @default 10000
   */
  requestTimeoutMs?: number;
  /**
   * How often node:http looks for connections past those timeouts (its default, 30 s,
   * would let a slow client hold its socket that much longer).
   * @default 1000
   */
  checkIntervalMs?: number;
}

/**
 * Bounds how long one client may take to send a request to a node:http server, so a
 * body trickled a byte at a time cannot hold a socket for minutes (node's defaults:
 * 60 s for headers, 300 s for the request). Past the limit node answers 408 (or the
 * server's `clientError` listener does) and closes the connection. Call it before
 * `listen()`: the check interval is read when the server starts listening.
 * Responses that take long (a slow statistics query) are not affected: only receiving
 * the request is timed.
 */
export function limitSlowClients(server: Server, limits: SlowClientLimits = {}): Server {
  server.headersTimeout = limits.headersTimeoutMs ?? 5_000;
  server.requestTimeout = limits.requestTimeoutMs ?? 10_000;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = limits.checkIntervalMs ?? 1_000;
  return server;
}
