import { defineCommand } from "../command.js";
import { findWebsite, idFrom } from "../values.js";

/** `tally alerts delete ID ALERT` */
export const alertsDelete = defineCommand({
  name: "alerts delete",
  summary: "delete one of a website's alert rules and its delivery log",
  arguments: ["ID", "ALERT"],
  options: {},
  environment: ["DATABASE_URL"],
  async run({ args, tally, print }) {
    const id = idFrom("ID", args[0]!);
    const alertId = idFrom("ALERT", args[1]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    await opened.alerts.delete(accountId, id, alertId);
    print(`Deleted alert ${alertId} of ${website.domain}.`);
  },
});
