import { invitationSchema, validate } from "@tally-analytics/core/internal";
import { defineCommand } from "../command.js";
import { accountFor } from "../values.js";
import { firstLineOfStdin, roleFrom, websitesFrom } from "../user-values.js";

/** `tally users add EMAIL [--role R] [--websites IDS] [--account ID] [--password-stdin]` */
export const usersAdd = defineCommand({
  name: "users add",
  summary: "add a person to an account (with --password-stdin), or print an invitation link for them",
  description:
    "Without --password-stdin, nothing is created yet: an invitation link is printed (it works\n" +
    "once, within 7 days; the person chooses a password). With it, the first line of standard\n" +
    "input is the password (10 to 128 characters) and the user can sign in at once.",
  arguments: ["EMAIL"],
  options: {
    role: { type: "string", value: "ROLE", description: "owner, admin or viewer (default viewer)" },
    websites: { type: "string", value: "IDS", description: "limit them to these website ids, comma-separated (default: all)" },
    account: { type: "string", value: "ID", description: "the account (needed when there are several)" },
    "password-stdin": { type: "boolean", description: "read the password from standard input" },
  },
  environment: ["DATABASE_URL", "PUBLIC_URL", "HOST", "PORT"],
  async run({ args, values, tally, print, env }) {
    const role = roleFrom(values.role, "viewer");
    const websites = websitesFrom(values.websites);
    const password = values["password-stdin"] ? await firstLineOfStdin() : undefined;
    const opened = await tally();
    const account = await accountFor(opened, values.account);
    const input = { email: args[0], role, ...(websites === undefined ? {} : { websites }) };
    if (password !== undefined) {
      const user = await opened.team.users.add(account.id, { ...input, password });
      print(`Added ${user.email} to account ${account.id} as ${user.role} (user ${user.id}).`);
      return;
    }
    // Without PUBLIC_URL, the address `tally serve` listens on with the same environment: a link that works here.
    const base = (env.PUBLIC_URL ?? `http://${env.HOST ?? "127.0.0.1"}:${env.PORT ?? 3000}`).replace(/\/+$/, "");
    const invited = await opened.team.tokens.invite(account.id, validate(invitationSchema, input));
    print(`Invited ${args[0]!.toLowerCase()} to account ${account.id} as ${role}. Send them this link (it works once, within 7 days):`);
    print(`${base}/invite?token=${invited}`);
    if (env.PUBLIC_URL === undefined)
      print("(PUBLIC_URL is not set: the link is tally serve's local address; set it to your Tally's public address.)");
  },
});
