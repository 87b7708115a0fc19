import { defineCommand } from "../command.js";
import { findAccount, idFrom, nonEmpty } from "../values.js";

/** `tally keys create [--name NAME] [--account ID]` */
export const keysCreate = defineCommand({
  name: "keys create",
  summary: "create an account and print its API key (with --account: a new key for that account)",
  description:
    "The key is printed once, alone on the last line (only its hash is stored). A key added to\n" +
    "an account with --account sees that account's websites; a new account starts with none.",
  options: {
    name: { type: "string", value: "NAME", description: 'a name for the account and the key (default "default")' },
    account: { type: "string", value: "ID", description: "add a key to this account instead of creating an account" },
  },
  environment: ["DATABASE_URL"],
  createsDatabase: true,
  async run({ values, tally, print }) {
    const options = values.name === undefined ? {} : { name: nonEmpty("--name", values.name) };
    const accountId = values.account === undefined ? undefined : idFrom("--account", values.account);
    const opened = await tally();
    const created =
      accountId === undefined
        ? await opened.accounts.create(options)
        : await opened.accounts.createKey((await findAccount(opened, accountId)).id, options);
    print(
      `${accountId === undefined ? "Created account" : "New key for account"} ${created.accountId}. Store this key now, it is not shown again:`,
    );
    print(created.key);
  },
});
