import { createServer, STATUS_CODES, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { createTally, redactDatabaseUrl, type Tally } from "@tally-analytics/core/internal";
import type { HandlerOptions } from "@tally-analytics/server";
import { limitSlowClients, toNodeHandler } from "@tally-analytics/server/node";
import { CommandError, defineCommand, whenReady, type Print } from "../command.js";
import { SERVE_ENVIRONMENT, serveConfig, type ServeConfig } from "../config.js";

/** With no key configured and no account yet, the first start creates one and prints its key once. */
async function ensureAccount(tally: Tally, config: ServeConfig, print: Print): Promise<void> {
  if (config.apiKey) {
    await tally.accounts.ensureKey(config.apiKey);
    return;
  }
  if ((await tally.accounts.count()) > 0) return;
  const created = await tally.accounts.create({ name: "default" });
  print(`Created account ${created.accountId}. Its API key, shown only this once:`);
  print(created.key);
}

/** The handler's single sign-on settings; without OIDC_ACCOUNT, newcomers join the only account there is. */
function ssoOptions({ sso }: ServeConfig): Pick<HandlerOptions, "sso"> {
  if (!sso) return {};
  const newUsers = sso.defaultRole
    ? { newUsers: { role: sso.defaultRole, ...(sso.account === undefined ? {} : { accountId: sso.account }) } }
    : {};
  return { sso: { issuer: sso.issuer, clientId: sso.clientId, clientSecret: sso.clientSecret, ...newUsers } };
}

/**
 * Requests node:http refuses before any handler runs (malformed request line or
 * headers, headers over 16 KiB, a timeout) get the API's JSON error shape instead of
 * Node's bare status line.
 */
function answerClientErrorsWithJson(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    const response = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === "ECONNRESET" || !socket.writable || response?.headersSent) {
      socket.destroy();
      return;
    }
    const status = error.code === "HPE_HEADER_OVERFLOW" ? 431 : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    const body = JSON.stringify({ message: status === 400 ? "Bad request." : `${STATUS_CODES[status]}.`, status });
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
}

/** Why listening failed, in words that say what to change. */
function listenFailure(error: NodeJS.ErrnoException, config: ServeConfig): CommandError {
  const where = `${config.host}:${config.port}`;
  const reason =
    error.code === "EADDRINUSE"
      ? "the port is in use (set PORT to another one, or PORT=0 for any free port)"
      : error.code === "EACCES"
        ? "permission denied (ports below 1024 need privileges: set PORT)"
        : error.code === "EADDRNOTAVAIL"
          ? `${config.host} is not an address of this machine (set HOST)`
          : error.code === "ENOTFOUND" || error.code === "EAI_AGAIN"
            ? `no such host ${config.host} (set HOST)`
            : error.message;
  return new CommandError(`cannot listen on ${where}: ${reason}`, { cause: error });
}

/** `tally serve`: the standalone server. Resolves once it has stopped cleanly. */
export async function serve(config: ServeConfig, print: Print = console.log): Promise<void> {
  const tally = createTally(config.tally);
  try {
    await listenAndWait(tally, config, print);
  } finally {
    await tally.close();
  }
}

/**
 * Serves until SIGTERM/SIGINT; a start that fails (database, port taken, bad key)
 * rejects. The port is taken before an account is created, so a new key is never
 * printed by a server that then fails to start.
 */
async function listenAndWait(tally: Tally, config: ServeConfig, print: Print): Promise<void> {
  await whenReady(tally);

  const handler = toNodeHandler(tally, { ...config.handler, ...ssoOptions(config) });
  // Node's own answer to an HTTP/1.1 request without Host is a bare 400: give the JSON one.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    if (req.headers.host === undefined && req.httpVersion === "1.1") {
      const body = JSON.stringify({ message: "Bad request.", status: 400 });
      res
        .writeHead(400, {
          "content-type": "application/json; charset=utf-8",
          "x-content-type-options": "nosniff",
          "content-length": Buffer.byteLength(body),
          connection: "close",
        })
        .end(body);
      return;
    }
    handler(req, res);
  });
  answerClientErrorsWithJson(server);
  limitSlowClients(server);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => reject(listenFailure(error, config)));
    server.listen(config.port, config.host, () => resolve());
  });
  try {
    await ensureAccount(tally, config, print);
  } catch (error) {
    server.close();
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const shownHost = config.host.includes(":") ? `[${config.host}]` : config.host;
  // The signal handlers are in place before the listening line: whoever waits for it may stop us at once.
  const stopped = new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      print(`${signal}: finishing requests, writing buffered hits, closing.`);
      process.off("SIGTERM", onTerm).off("SIGINT", onInt);
      server.close(() => resolve());
      server.closeIdleConnections();
      // Requests still running after a grace period are cut so the process can exit.
      setTimeout(() => server.closeAllConnections(), 5000).unref();
    };
    const onTerm = () => stop("SIGTERM");
    const onInt = () => stop("SIGINT");
    process.on("SIGTERM", onTerm).on("SIGINT", onInt);
  });
  if (config.tally.mail) {
    const links = config.tally.publicUrl
      ? `links to ${config.tally.publicUrl}`
      : "no links: set PUBLIC_URL for dashboard and unsubscribe links";
    print(`E-mail reports are on (${links}).`);
  }
  print(`Tally is listening on http://${shownHost}:${port} (database ${redactDatabaseUrl(String(config.tally.database))})`);
  await stopped;
}

/** `tally serve` */
export const serveCommand = defineCommand({
  name: "serve",
  summary: "run the server: API, dashboard, tracker and /collect",
  description:
    "Configured by the environment (checked before anything starts). With no TALLY_API_KEY and\n" +
    "no account yet, the first start creates an account and prints its key once, after the\n" +
    "port is taken. SIGTERM or SIGINT stops it: requests finish, buffered hits are written.",
  options: {},
  environment: Object.keys(SERVE_ENVIRONMENT),
  async run({ env, print }) {
    await serve(serveConfig(env), print);
  },
});
