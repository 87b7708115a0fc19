import { defineCommand } from "../command.js";
import { condition, destinations } from "../alert-fields.js";
import { findWebsite, idFrom, printTable } from "../values.js";

/** `tally alerts list ID [--json]` */
export const alertsList = defineCommand({
  name: "alerts list",
  summary: "list a website's alert rules",
  arguments: ["ID"],
  options: { json: { type: "boolean", description: "print them as JSON (signing keys included)" } },
  environment: ["DATABASE_URL"],
  async run({ args, values, tally, print }) {
    const id = idFrom("ID", args[0]!);
    const opened = await tally();
    const { accountId, website } = await findWebsite(opened, id);
    const alerts = await opened.alerts.list(accountId, id);
    if (values.json) print(JSON.stringify(alerts, null, 2));
    else if (alerts.length === 0) print(`No alert rules on ${website.domain} yet (tally alerts add ${id} --kind …).`);
    else {
      const table = [["ID", "RULE", "STATE", "FIRED", "TO"]];
      for (const alert of alerts)
        table.push([
          String(alert.id),
          condition(alert),
          alert.enabled ? alert.state : "disabled",
          String(alert.firings),
          destinations(alert),
        ]);
      printTable(print, table);
    }
  },
});
