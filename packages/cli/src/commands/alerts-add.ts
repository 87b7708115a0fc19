import { defineCommand } from "../command.js";
import { ALERT_OPTIONS, alertInput, printAlert } from "../alert-fields.js";
import { findWebsite, idFrom } from "../values.js";

/** `tally alerts add ID --kind KIND [fields]` */
export const alertsAdd = defineCommand({
  name: "alerts add",
  summary: "add an alert rule to a website (e-mail, webhook, or both)",
  description:
    "Kinds: visitors (visitors in the last hour >= threshold), spike (>= threshold x the same hour last week),\n" +
    "no_pageviews (none for threshold minutes), goal (--goal converted by >= threshold visitors since the last check).\n" +
    "The running server checks rules every minute; webhooks are signed with the key printed here.",
  arguments: ["ID"],
  options: ALERT_OPTIONS,
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const id = idFrom("ID", args[0]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    printAlert(print, "Added", await opened.alerts.create(accountId, id, alertInput(values)), website.domain, values.json);
  },
});
