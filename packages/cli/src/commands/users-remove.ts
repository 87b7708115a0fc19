import { NotFoundError } from "@tally-analytics/core/internal";
import { defineCommand } from "../command.js";
import { ACCOUNT_OF_USER, findUser } from "../user-values.js";
import { accountFor } from "../values.js";

/** `tally users remove EMAIL [--account ID]` */
export const usersRemove = defineCommand({
  name: "users remove",
  summary: "remove a person (their sessions, keys and invitations end at once), or their invitation",
  arguments: ["EMAIL"],
  options: { account: ACCOUNT_OF_USER },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const opened = await tally();
    const email = args[0]!.trim().toLowerCase();
    const user = await findUser(opened, email, values.account).catch(async (error: unknown) => {
      if (!(error instanceof NotFoundError)) throw error;
      // No such person: perhaps an invitation that was never accepted.
      const account = await accountFor(opened, values.account).catch(() => null);
      if (account === null) throw error;
      await opened.team.tokens.revokeInvitation(account.id, email).catch(() => Promise.reject(error));
      return null;
    });
    if (user === null) return print(`Revoked the pending invitation of ${email}.`);
    await opened.team.users.remove(Number(user.account_id), Number(user.id));
    print(`Removed ${user.email} from account ${user.account_id}.`);
  },
});
