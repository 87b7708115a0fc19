// Loaded on the first MCP request (or by `tally mcp`): the SDK stays out of an app that never uses it.
import { createRequire } from "node:module";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describeError } from "../http/errors.js";
import { TOOLS, type ToolAnswer, type ToolCaller } from "./mcp-tools.js";

const { version } = createRequire(import.meta.url)("../../package.json") as { version: string };

const INSTRUCTIONS = [
  "Tally web analytics of the websites this key can see. Start with list_websites: ids, time zones and today's date in each.",
  "Days are Y-m-d in the website's time zone; a range's from and to are both included.",
  "Filters are `<dimension>:<operator>:<value>` (country:is:DE, page:contains:/blog); `compare` adds the previous period's figures.",
  "Every answer starts with a one-line summary, then the figures as JSON.",
].join(" ");

const answered = ({ summary, data }: ToolAnswer): CallToolResult => ({
  content: [
    { type: "text", text: summary },
    { type: "text", text: JSON.stringify(data) },
  ],
  structuredContent: data,
});

/** A refused call as the API would answer it (`{"message", "errors"?, "status"}`); an unexpected error is only "Server error.". */
function refused(error: unknown, report: (error: unknown) => void): CallToolResult {
  const { status, payload } = describeError(error, report);
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ ...payload, status }) }] };
}

/** Tally's MCP server for one caller: every tool, answering with the caller's access; `calls` holds the calls under way. */
function createServer(caller: ToolCaller, report: (error: unknown) => void, calls = new Set<Promise<unknown>>()): McpServer {
  const server = new McpServer({ name: "tally", title: "Tally", version }, { instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: tool.writes
          ? { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false }
          : { readOnlyHint: true, openWorldHint: false },
      },
      (args: Record<string, unknown>) => {
        const call = tool.run(caller, args).then(answered, (error: unknown) => refused(error, report));
        calls.add(call);
        return call.finally(() => calls.delete(call));
      },
    );
  }
  return server;
}

/**
 * One Streamable HTTP request, answered statelessly (a server per request, JSON answers, no
 * session: no `sessionIdGenerator`): any instance behind a load balancer can take the next one.
 */
export async function answerHttp(caller: ToolCaller, request: Request, body: unknown, report: (error: unknown) => void): Promise<Response> {
  const server = createServer(caller, report);
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    await server.close();
  }
}

/** Serves MCP on standard input and output until input ends; the calls under way then are answered first. */
export async function serveStdio(caller: ToolCaller, report: (error: unknown) => void): Promise<void> {
  const calls = new Set<Promise<unknown>>();
  const server = createServer(caller, report, calls);
  const ended = new Promise<void>((resolve) => process.stdin.once("end", resolve).once("close", resolve));
  await server.connect(new StdioServerTransport());
  await ended;
  // Messages read with the last input are dispatched first; then their calls finish and are sent.
  await new Promise((resolve) => setImmediate(resolve));
  while (calls.size > 0) await Promise.allSettled([...calls]);
  await server.close();
}
