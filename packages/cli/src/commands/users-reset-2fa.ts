import { defineCommand } from "../command.js";
import { ACCOUNT_OF_USER, findUser } from "../user-values.js";

/** `tally users reset-2fa EMAIL [--account ID]` */
export const usersResetTwoFactor = defineCommand({
  name: "users reset-2fa",
  summary: "turn off a person's two-factor sign-in (lost phone) and sign them out everywhere",
  description:
    "Their recovery codes stop working too, and so do their API keys (a key made from a stolen\n" +
    "session must not outlive it): they make new ones once signed in. If the account requires\n" +
    "two-factor sign-in, they set it up again at their next sign-in.",
  arguments: ["EMAIL"],
  options: { account: ACCOUNT_OF_USER },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const opened = await tally();
    const user = await findUser(opened, args[0]!, values.account);
    await opened.team.resetTwoFactor(user.email, Number(user.account_id));
    print(`Two-factor sign-in of ${user.email} is off; their sessions have ended and their API keys are revoked.`);
  },
});
