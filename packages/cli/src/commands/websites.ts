import type { Tally, Website } from "@tally-analytics/core";
import { UsageError, stringFlag, type ParsedArgs } from "../args.js";

type Print = (line: string) => void;

async function allWebsites(tally: Tally, accountId: number): Promise<Website[]> {
  const websites: Website[] = [];
  for (let page = 1; ; page++) {
    const result = await tally.websites.list(accountId, { perPage: 100, page, sortBy: "id", sort: "asc" });
    websites.push(...result.data);
    if (page * result.perPage >= result.total) return websites;
  }
}

/** `tally websites list [--account ID] [--json]`: every website, oldest first. */
export async function websites(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  if (args.positional[1] !== "list") throw new UsageError("usage: tally websites list [--account ID] [--json]");
  const accountText = stringFlag(args, "account");
  const accounts = accountText === undefined ? await tally.accounts.list() : [await tally.accounts.get(Number(accountText))];
  const rows: (Website & { account_id: number })[] = [];
  for (const account of accounts) {
    for (const website of await allWebsites(tally, account.id)) rows.push({ ...website, account_id: account.id });
  }
  if (args.flags.has("json")) {
    print(JSON.stringify(rows, null, 2));
    return;
  }
  if (rows.length === 0) {
    print("No websites yet.");
    return;
  }
  const table = [["ID", "ACCOUNT", "DOMAIN", "PRIVACY", "TIMEZONE", "CREATED"]];
  for (const w of rows) table.push([String(w.id), String(w.account_id), w.domain, String(w.privacy), w.timezone, w.created_at]);
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) print(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd());
}
