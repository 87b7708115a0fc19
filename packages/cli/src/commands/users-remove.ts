import { defineCommand } from "../command.js";
import { findUser } from "../user-values.js";

/** `tally users remove EMAIL` */
export const usersRemove = defineCommand({
  name: "users remove",
  summary: "remove a person: their sessions and API keys end at once",
  arguments: ["EMAIL"],
  options: {},
  environment: ["DATABASE_URL"],
  async run({ args, tally, print }) {
    const opened = await tally();
    const user = await findUser(opened, args[0]!);
    await opened.team.users.remove(Number(user.account_id), Number(user.id));
    print(`Removed ${user.email} from account ${user.account_id}.`);
  },
});
