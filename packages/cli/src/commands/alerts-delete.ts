import { defineCommand } from "../command.js";
import { findWebsite, idFrom } from "../values.js";

/** `tally alerts delete WEBSITE_ID ALERT_ID` */
export const alertsDelete = defineCommand({
  name: "alerts delete",
  summary: "delete an alert rule and its delivery log",
  arguments: ["WEBSITE_ID", "ALERT_ID"],
  options: {},
  environment: ["DATABASE_URL"],
  async run({ args, tally, print }) {
    const id = idFrom("WEBSITE_ID", args[0]!);
    const alertId = idFrom("ALERT_ID", args[1]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    await opened.alerts.delete(accountId, id, alertId);
    print(`Deleted alert ${alertId} of ${website.domain}.`);
  },
});
