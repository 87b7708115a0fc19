import { defineCommand } from "../command.js";
import { accountFor } from "../values.js";
import { printWebsite, WEBSITE_OPTIONS, websiteInput } from "../website-fields.js";

/** `tally websites create DOMAIN [--account ID] [settings]` */
export const websitesCreate = defineCommand({
  name: "websites create",
  summary: "add a website (the domain its pages are served from)",
  description:
    "DOMAIN is normalised as in the API (https://www.Example.com/ is example.com). --account is\n" +
    "needed only when there are several accounts.",
  arguments: ["DOMAIN"],
  options: {
    account: { type: "string", value: "ID", description: "the account it belongs to (default: the only one)" },
    ...WEBSITE_OPTIONS,
  },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const opened = await tally();
    const account = await accountFor(opened, values.account);
    const website = await opened.websites.create(account.id, { ...websiteInput(values), domain: args[0] });
    printWebsite(print, "Created", website, account.id, values.json);
  },
});
