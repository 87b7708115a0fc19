import { defineCommand } from "../command.js";
import { findWebsite, idFrom, printTable } from "../values.js";

/** `tally alerts deliveries ID [--alert ID] [--json]` */
export const alertsDeliveries = defineCommand({
  name: "alerts deliveries",
  summary: "a website's alert delivery log, newest first",
  arguments: ["ID"],
  options: {
    alert: { type: "string", value: "ID", description: "only this rule's deliveries" },
    json: { type: "boolean", description: "print them as JSON" },
  },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const id = idFrom("ID", args[0]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    const options = values.alert === undefined ? {} : { alert: idFrom("--alert", values.alert) };
    const deliveries = await opened.alerts.deliveries(accountId, id, options);
    if (values.json) print(JSON.stringify(deliveries, null, 2));
    else if (deliveries.length === 0) print(`No alert of ${website.domain} has fired yet.`);
    else {
      const table = [["WHEN", "ALERT", "TO", "STATUS", "TRIES", "WHAT"]];
      for (const delivery of deliveries) {
        const status = delivery.last_error && delivery.status !== "sent" ? `${delivery.status}: ${delivery.last_error}` : delivery.status;
        table.push([delivery.created_at, String(delivery.alert_id), delivery.target, status, String(delivery.attempts), delivery.text]);
      }
      printTable(print, table);
    }
  },
});
