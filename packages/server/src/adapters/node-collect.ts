import type { IncomingMessage, ServerResponse } from "node:http";
import type { Tally } from "@tally-analytics/core";
import { decodeUtf8, UNREADABLE_BODY } from "../http/body.js";
import { answerHit, COLLECT_BODY_LIMIT, collectReporter } from "../collect/collect.js";
import { HttpError, MESSAGES } from "../http/errors.js";
import type { NodeRequest } from "./node-bridge.js";

const headerOf = (req: IncomingMessage) => (name: string) => {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
};

/** The body as UTF-8 text within the hit limit, whether or not a host body parser read it first. */
function readHitText(req: NodeRequest): string | Promise<string> {
  if (req.body !== undefined && req.readableEnded) {
    if (typeof req.body === "string") return req.body;
    return Buffer.isBuffer(req.body) ? req.body.toString("utf8") : JSON.stringify(req.body);
  }
  if (Number(req.headers["content-length"]) > COLLECT_BODY_LIMIT) throw tooLarge();
  return readSmallBody(req).then(decodeUtf8);
}

// Built only when thrown: an Error captures a stack trace, too dear for every hit.
const tooLarge = () => new HttpError(413, MESSAGES.tooLarge);

/**
 * The body's bytes up to COLLECT_BODY_LIMIT, read with the stream's events (an async
 * iterator costs a few percent of a hit). A body past the limit stops the reading (413);
 * an upload the client aborted, or the server cut for being too slow, is the client's
 * doing, not a server error (400).
 */
function readSmallBody(req: NodeRequest): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error: HttpError) => {
      req.off("data", onData).off("end", onEnd).off("error", onError).off("close", onClose);
      req.pause();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > COLLECT_BODY_LIMIT) stop(tooLarge());
      else chunks.push(chunk);
    };
    const onEnd = () => {
      req.off("error", onError).off("close", onClose);
      resolve(Buffer.concat(chunks, size));
    };
    const onError = () => stop(new HttpError(400, UNREADABLE_BODY));
    const onClose = () => {
      if (!req.complete) stop(new HttpError(400, UNREADABLE_BODY));
    };
    req.on("data", onData).on("end", onEnd).on("error", onError).on("close", onClose);
  });
}

/**
 * POST /collect straight on IncomingMessage/ServerResponse: the hot path skips the
 * Request/Response bridge every other route goes through, and answers exactly as the
 * fetch route does (the same function underneath).
 */
export function createNodeCollect(tally: Tally) {
  const report = collectReporter();
  return function serveCollect(req: NodeRequest, res: ServerResponse): Promise<void> {
    const request = { text: () => readHitText(req), socketIp: req.socket.remoteAddress, header: headerOf(req) };
    return answerHit(tally, request, report).then((answer) => {
      // A body left unread (413) closes the connection instead of being drained.
      // setHeader rather than writeHead(headers): the host's logging middleware can read them back.
      for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
      if (!req.complete) res.setHeader("connection", "close");
      res.statusCode = answer.status;
      res.end(answer.body);
    });
  };
}
