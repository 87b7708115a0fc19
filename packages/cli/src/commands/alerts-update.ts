import { defineCommand, UsageError } from "../command.js";
import { ALERT_OPTIONS, alertInput, printAlert } from "../alert-fields.js";
import { findWebsite, idFrom } from "../values.js";

/** `tally alerts update ID ALERT [fields]` */
export const alertsUpdate = defineCommand({
  name: "alerts update",
  summary: "change one of a website's alert rules (--enabled 0 pauses it)",
  description: "Only the fields given change. A new kind, threshold or goal starts the rule afresh.",
  arguments: ["ID", "ALERT"],
  options: ALERT_OPTIONS,
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const input = alertInput(values);
    if (Object.keys(input).length === 0) throw new UsageError("nothing to change: give at least one field (see --help)");
    const id = idFrom("ID", args[0]!);
    const alertId = idFrom("ALERT", args[1]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    printAlert(print, "Updated", await opened.alerts.update(accountId, id, alertId, input), website.domain, values.json);
  },
});
