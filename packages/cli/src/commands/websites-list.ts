import type { Tally, Website } from "@tally-analytics/core";
import { defineCommand } from "../command.js";
import { findAccount, idFrom, printTable } from "../values.js";

async function allWebsites(tally: Tally, accountId: number): Promise<Website[]> {
  const websites: Website[] = [];
  for (let page = 1; ; page++) {
    const result = await tally.websites.list(accountId, { perPage: 100, page, sortBy: "id", sort: "asc" });
    websites.push(...result.data);
    if (page * result.perPage >= result.total) return websites;
  }
}

/** `tally websites list [--account ID] [--json]` */
export const websitesList = defineCommand({
  name: "websites list",
  summary: "list websites, oldest first",
  options: {
    account: { type: "string", value: "ID", description: "only this account's websites (default: every account's)" },
    json: { type: "boolean", description: "print them as JSON" },
  },
  environment: ["DATABASE_URL"],
  async run({ values, tally, print }) {
    const opened = await tally();
    const accounts =
      values.account === undefined ? await opened.accounts.list() : [await findAccount(opened, idFrom("--account", values.account))];
    const rows: (Website & { account_id: number })[] = [];
    for (const account of accounts) {
      for (const website of await allWebsites(opened, account.id)) rows.push({ ...website, account_id: account.id });
    }
    if (values.json) {
      print(JSON.stringify(rows, null, 2));
      return;
    }
    if (rows.length === 0) {
      print("No websites yet.");
      return;
    }
    const table = [["ID", "ACCOUNT", "DOMAIN", "PRIVACY", "TIMEZONE", "CREATED"]];
    for (const w of rows) table.push([String(w.id), String(w.account_id), w.domain, String(w.privacy), w.timezone, w.created_at]);
    printTable(print, table);
  },
});
