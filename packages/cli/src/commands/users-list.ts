import { defineCommand } from "../command.js";
import { findAccount, idFrom, printTable } from "../values.js";

/** `tally users list [--account ID] [--json]` */
export const usersList = defineCommand({
  name: "users list",
  summary: "list the people of every account (or one), oldest first",
  options: {
    account: { type: "string", value: "ID", description: "only this account's users" },
    json: { type: "boolean", description: "print them as JSON" },
  },
  environment: ["DATABASE_URL"],
  async run({ values, tally, print }) {
    const opened = await tally();
    const accounts =
      values.account === undefined ? await opened.accounts.list() : [await findAccount(opened, idFrom("--account", values.account))];
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
