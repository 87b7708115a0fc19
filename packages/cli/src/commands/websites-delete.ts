import { defineCommand, UsageError } from "../command.js";
import { findWebsite, idFrom } from "../values.js";

/** `tally websites delete ID --yes` */
export const websitesDelete = defineCommand({
  name: "websites delete",
  summary: "delete a website and all its statistics (needs --yes)",
  arguments: ["ID"],
  options: {
    yes: { type: "boolean", description: "really delete: its statistics cannot be brought back" },
  },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const id = idFrom("ID", args[0]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    if (!values.yes) throw new UsageError(`deleting website ${id} (${website.domain}) deletes all its statistics: add --yes to confirm`);
    await opened.websites.delete(accountId, id);
    print(`Deleted website ${id} (${website.domain}) and its statistics.`);
  },
});
