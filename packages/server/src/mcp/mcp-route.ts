import type { Access, Tally } from "@tally-analytics/core";
import * as z from "zod";
import { DEFAULT_BODY_LIMIT, mediaType, readText } from "../http/body.js";
import { HttpError } from "../http/errors.js";
import { plainJson } from "../http/json-response.js";
import { defineRoute } from "../http/route.js";

const jsonRpcId = z
  .union([z.string().meta({ description: "An id the client chose." }), z.number()])
  .nullable()
  .meta({ description: "The request's id; null when the message could not be read." });

const jsonRpcRequest = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: jsonRpcId.optional().meta({ description: "Absent on a notification." }),
    method: z.string().meta({ example: "tools/call" }),
    params: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: "JsonRpcRequest", description: "An MCP message (JSON-RPC 2.0): `initialize`, `tools/list`, `tools/call`…" });

const jsonRpcAnswer = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: jsonRpcId,
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  })
  .meta({ id: "JsonRpcAnswer", description: "An MCP answer (JSON-RPC 2.0): a `result`, or an `error`." });

const jsonRpcAnswers = z.union([jsonRpcAnswer, z.array(jsonRpcAnswer)]);

/** The SDK's server, loaded on the first request: an app that never serves MCP never loads it. */
const mcpServer = () => import("./mcp-server.js");

/**
 * `POST {base}/mcp`: Tally's MCP server over Streamable HTTP, behind the API's own sign-in,
 * permissions and rate limit (one request counts as one API request). Read keys suffice but for
 * the two write tools.
 */
export const mcpRoute = defineRoute({
  method: "POST",
  path: "/mcp",
  auth: "account",
  permission: "read",
  ownBody: { schema: jsonRpcRequest, mediaTypes: ["application/json"] },
  summary: "The MCP server (Streamable HTTP)",
  tag: "MCP",
  description:
    "Model Context Protocol over Streamable HTTP, stateless: each POST carries JSON-RPC messages and is answered in JSON (no session, no event stream; GET is 405). " +
    "The tools read what the API reads, with the key's access (and two write, with a write key, as its POST routes do): list_websites, get_statistic, get_totals, query_stats, list_funnels, get_funnel, get_journey, get_realtime, create_goal, create_annotation (docs/mcp.md). " +
    "Clients must accept `application/json` and `text/event-stream`.",
  responses: {
    200: { description: "The answers to the requests the body carried.", schema: jsonRpcAnswers },
    202: { description: "The body carried only notifications or answers: accepted, nothing to say." },
    400: { description: "Not JSON, or not a JSON-RPC message.", schema: jsonRpcAnswer },
    406: { description: "The client does not accept both `application/json` and `text/event-stream`.", schema: jsonRpcAnswer },
    413: "error",
  },
  async handle({ tally, request, access, report }) {
    if (mediaType(request) !== "application/json") throw new HttpError(415, "Send MCP messages as application/json.");
    let body: unknown;
    try {
      body = JSON.parse(await readText(request, DEFAULT_BODY_LIMIT));
    } catch (error) {
      if (error instanceof HttpError) throw error;
      return plainJson(400, { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null });
    }
    const { answerHttp } = await mcpServer();
    return answerHttp({ tally, access }, request, body, report);
  },
});

/**
 * `tally mcp`: Tally's MCP server on standard input and output, for a local assistant, with
 * `access` (a key's, or an account's owner); resolves when input ends.
 */
export async function serveMcpOverStdio(tally: Tally, access: Access, report: (error: unknown) => void): Promise<void> {
  const { serveStdio } = await mcpServer();
  await serveStdio({ tally, access }, report);
}
