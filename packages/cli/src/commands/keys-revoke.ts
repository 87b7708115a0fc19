import { defineCommand, UsageError, CommandError } from "../command.js";

/** Characters of a key `keys revoke` needs: `tly_` and 8 more (the part stored in clear). */
const PREFIX_LENGTH = 12;

/** `tally keys revoke KEY_PREFIX` */
export const keysRevoke = defineCommand({
  name: "keys revoke",
  summary: "revoke a key by its first 12 characters (or the whole key)",
  description:
    `KEY_PREFIX is the key's first ${PREFIX_LENGTH} characters (tly_ and 8 more) or the whole key. Every\n` +
    "active key starting with it is refused from the next request on, also by running servers.",
  arguments: ["KEY_PREFIX"],
  options: {},
  environment: ["DATABASE_URL"],
  async run({ args, tally, print }) {
    const prefix = args[0]!;
    if (prefix.length < PREFIX_LENGTH) {
      throw new UsageError(
        `KEY_PREFIX must be at least the first ${PREFIX_LENGTH} characters of the key (tly_ and 8 more), got ${prefix.length}`,
      );
    }
    const revoked = await (await tally()).accounts.revokeKey(prefix);
    if (revoked === 0) throw new CommandError(`No active key starts with ${prefix}.`);
    print(`Revoked ${revoked} key${revoked === 1 ? "" : "s"}.`);
  },
});
