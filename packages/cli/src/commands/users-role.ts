import { defineCommand, UsageError } from "../command.js";
import { ACCOUNT_OF_USER, findUser, roleFrom, websitesFrom } from "../user-values.js";

/** `tally users role EMAIL ROLE [--websites IDS] [--account ID]` */
export const usersRole = defineCommand({
  name: "users role",
  summary: "change a person's role (owner, admin, viewer) and the websites they may see",
  arguments: ["EMAIL", "ROLE"],
  options: {
    websites: { type: "string", value: "IDS", description: "limit them to these website ids, comma-separated, or all" },
    account: ACCOUNT_OF_USER,
  },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    if (args[1] === undefined) throw new UsageError("give the new role: owner, admin or viewer");
    const role = roleFrom(args[1], "viewer");
    const websites = websitesFrom(values.websites);
    const opened = await tally();
    const user = await findUser(opened, args[0]!, values.account);
    const changed = await opened.team.users.update(Number(user.account_id), Number(user.id), {
      role,
      ...(websites === undefined ? {} : { websites }),
    });
    print(`${changed.email} is now ${changed.role} of account ${changed.account_id} (websites: ${changed.websites?.join(",") ?? "all"}).`);
  },
});
