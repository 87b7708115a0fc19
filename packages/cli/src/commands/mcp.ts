import { UnauthorizedError, type Access, type Tally } from "@tally-analytics/core";
import { CommandError, defineCommand } from "../command.js";
import { accountFor } from "../values.js";

/** The key's access (what it sees through the API), or an account's owner's when no key is given. */
async function accessFor(tally: Tally, key: string | undefined, account: string | undefined): Promise<Access> {
  if (key === undefined || key.trim() === "") return { accountId: (await accountFor(tally, account)).id, role: "owner" };
  try {
    return await tally.team.users.keyAccess(key.trim());
  } catch (error) {
    throw error instanceof UnauthorizedError ? new CommandError("TALLY_API_KEY is not an active key of this database.") : error;
  }
}

/** `tally mcp [--account ID]` */
export const mcpCommand = defineCommand({
  name: "mcp",
  summary: "serve Tally's MCP tools on standard input and output, for a local AI assistant",
  description:
    "An MCP client starts it (docs/mcp.md has the lines for Claude Desktop, Claude Code, Cursor and VS Code) and\n" +
    "talks to it until it closes its input. With TALLY_API_KEY it sees what that key sees through the API;\n" +
    "without, everything of --account (or of the only account). Standard output carries only the protocol.",
  options: {
    account: {
      type: "string",
      value: "ID",
      description: "the account whose websites it reads, without TALLY_API_KEY (default: the only one)",
    },
  },
  environment: ["DATABASE_URL", "TALLY_API_KEY"],
  async run({ values, env, tally }) {
    const opened = await tally();
    const access = await accessFor(opened, env.TALLY_API_KEY, values.account);
    // Loaded here: every other command, and `tally --help`, runs without the server.
    const { serveMcpOverStdio } = await import("@tally-analytics/server/internal");
    await serveMcpOverStdio(opened, access, (error) =>
      console.error(`tally mcp: ${error instanceof Error ? error.message : String(error)}`),
    );
  },
});
