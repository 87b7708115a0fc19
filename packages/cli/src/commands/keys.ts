import type { Tally } from "@tally-analytics/core";
import { UsageError, stringFlag, type ParsedArgs } from "../args.js";

type Print = (line: string) => void;

/** `tally keys create [--name N] [--account ID]` and `tally keys revoke KEY_PREFIX`. */
export async function keys(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  const [action, prefix] = args.positional.slice(1);
  if (action === "create") {
    const name = stringFlag(args, "name");
    const accountText = stringFlag(args, "account");
    const options = name === undefined ? {} : { name };
    if (accountText !== undefined && !/^\d+$/.test(accountText)) throw new UsageError("--account takes an account id");
    const created =
      accountText === undefined
        ? await tally.accounts.create(options)
        : await tally.accounts.createKey(Number(accountText), options);
    print(`${accountText === undefined ? "Created account" : "New key for account"} ${created.accountId}. Store this key now, it is not shown again:`);
    print(created.key);
    return;
  }
  if (action === "revoke") {
    if (!prefix) throw new UsageError("usage: tally keys revoke KEY_PREFIX");
    const revoked = await tally.accounts.revokeKey(prefix);
    if (revoked === 0) throw new UsageError(`No active key starts with ${prefix}`);
    print(`Revoked ${revoked} key${revoked === 1 ? "" : "s"}.`);
    return;
  }
  throw new UsageError("usage: tally keys create [--name N] [--account ID] | tally keys revoke KEY_PREFIX");
}
