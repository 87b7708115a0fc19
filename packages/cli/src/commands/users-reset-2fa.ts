import { defineCommand } from "../command.js";
import { findUser } from "../user-values.js";

/** `tally users reset-2fa EMAIL` */
export const usersResetTwoFactor = defineCommand({
  name: "users reset-2fa",
  summary: "turn off a person's two-factor sign-in (lost phone) and sign them out everywhere",
  description:
    "Their recovery codes stop working too. If the account requires two-factor sign-in, they set it up again at their next sign-in.",
  arguments: ["EMAIL"],
  options: {},
  environment: ["DATABASE_URL"],
  async run({ args, tally, print }) {
    const opened = await tally();
    const user = await findUser(opened, args[0]!);
    await opened.team.resetTwoFactor(user.email);
    print(`Two-factor sign-in of ${user.email} is off; their sessions have ended.`);
  },
});
