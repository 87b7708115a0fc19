import { defineCommand, UsageError } from "../command.js";
import { findWebsite, idFrom } from "../values.js";
import { printWebsite, WEBSITE_UPDATE_OPTIONS, websiteInput } from "../website-fields.js";

/** `tally websites update ID [settings]` */
export const websitesUpdate = defineCommand({
  name: "websites update",
  summary: "change a website's settings",
  description: "Only the settings given change. The domain stays (create a new website for another one).",
  arguments: ["ID"],
  options: WEBSITE_UPDATE_OPTIONS,
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const input = websiteInput(values);
    if (Object.keys(input).length === 0) throw new UsageError("nothing to change: give at least one setting (see --help)");
    const id = idFrom("ID", args[0]!);
    const opened = await tally();
    const { accountId } = await findWebsite(opened, id);
    const website = await opened.websites.update(accountId, id, input);
    printWebsite(print, "Updated", website, accountId, values.json);
  },
});
