import type { Tally } from "@tally-analytics/core/internal";
import { defineCommand } from "../command.js";
import { findAccount, idFrom, printTable } from "../values.js";

async function accountsOf(tally: Tally, accountText: string | undefined) {
  return accountText === undefined ? tally.accounts.list() : [await findAccount(tally, idFrom("--account", accountText))];
}

/** `tally users list [--account ID] [--pending] [--json]` */
export const usersList = defineCommand({
  name: "users list",
  summary: "list the people of every account (or one), oldest first, or (--pending) their invitations",
  options: {
    account: { type: "string", value: "ID", description: "only this account's users" },
    pending: { type: "boolean", description: "list pending invitations instead (who sent each, when it expires)" },
    json: { type: "boolean", description: "print them as JSON" },
  },
  environment: ["DATABASE_URL"],
  async run({ values, tally, print }) {
    const opened = await tally();
    const accounts = await accountsOf(opened, values.account);
    if (values.pending) {
      const pending = (
        await Promise.all(
          accounts.map(async (account) =>
            (await opened.team.tokens.invitations(account.id)).map((invitation) => ({ account_id: account.id, ...invitation })),
          ),
        )
      ).flat();
      if (values.json) return print(JSON.stringify(pending, null, 2));
      if (pending.length === 0) return print("No pending invitations.");
      const table = [["ACCOUNT", "EMAIL", "ROLE", "WEBSITES", "INVITED BY", "EXPIRES"]];
      for (const invitation of pending)
        table.push([
          String(invitation.account_id),
          invitation.email,
          invitation.role,
          invitation.websites?.join(",") ?? "all",
          invitation.invited_by ?? "-",
          invitation.expires_at,
        ]);
      return printTable(print, table);
    }
    const users = (await Promise.all(accounts.map((account) => opened.team.users.list(account.id)))).flat();
    if (values.json) return print(JSON.stringify(users, null, 2));
    if (users.length === 0) return print("No users yet.");
    const table = [["ID", "ACCOUNT", "EMAIL", "ROLE", "WEBSITES", "2FA", "CREATED"]];
    for (const user of users)
      table.push([
        String(user.id),
        String(user.account_id),
        user.email,
        user.role,
        user.websites?.join(",") ?? "all",
        user.two_factor ? "on" : "off",
        user.created_at,
      ]);
    printTable(print, table);
  },
});
