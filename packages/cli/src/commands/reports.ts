import type { Account, ReportPeriod, Tally } from "@tally-analytics/core";
import { UsageError, stringFlag, type ParsedArgs } from "../args.js";

type Print = (line: string) => void;

const USAGE =
  "usage: tally reports send [--period week|month] [--account ID] [--dry-run] [--to ADDRESS]\n" +
  "       tally reports set --account ID [--email ADDRESS] [--period week|month]";

function periodFlag(args: ParsedArgs): ReportPeriod | undefined {
  const period = stringFlag(args, "period");
  if (period === undefined || period === "week" || period === "month") return period;
  throw new UsageError("--period takes week or month");
}

function accountFlag(args: ParsedArgs): number | undefined {
  const text = stringFlag(args, "account");
  if (text !== undefined && !/^\d+$/.test(text)) throw new UsageError("--account takes an account id");
  return text === undefined ? undefined : Number(text);
}

const settings = (account: Account) =>
  `Account ${account.id}: ${account.report_period}ly reports ${account.email === null ? "(no address: none are sent)" : `to ${account.email}`}.`;

/** `tally reports set`: an account's address (`--email ""` removes it) and period. */
async function set(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  const accountId = accountFlag(args);
  if (accountId === undefined) throw new UsageError(USAGE);
  const email = args.flags.get("email");
  if (email === true) throw new UsageError('--email needs an address (or "" to remove it)');
  const period = periodFlag(args);
  const account = await tally.accounts.update(accountId, {
    ...(email === undefined ? {} : { email }),
    ...(period === undefined ? {} : { report_period: period }),
  });
  print(settings(account));
}

/** `tally reports send`: each account's report of the last full period, now; `--dry-run` prints the text instead. */
async function send(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  const accountId = accountFlag(args);
  const period = periodFlag(args);
  const to = stringFlag(args, "to");
  const dryRun = args.flags.has("dry-run");
  const accounts = accountId === undefined ? await tally.accounts.list() : [await tally.accounts.get(accountId)];
  const options = { ...(period === undefined ? {} : { period }), ...(to === undefined ? {} : { to }) };
  for (const account of accounts) {
    const report = dryRun ? await tally.reports.build(account.id, options) : await tally.reports.send(account.id, options);
    if (report === null) print(`Account ${account.id}: no website has e-mail reports on (set email to 1 on a website).`);
    else if (dryRun) print(`To: ${to ?? report.to ?? "(no address)"}\nSubject: ${report.subject}\n\n${report.text}`);
    else if (report.to === null) print(`Account ${account.id}: no address (tally reports set --account ${account.id} --email ADDRESS, or --to).`);
    else print(`Account ${account.id}: sent "${report.subject}" to ${report.to}.`);
  }
}

/** `tally reports send|set`. */
export async function reports(tally: Tally, args: ParsedArgs, print: Print): Promise<void> {
  const action = args.positional[1];
  if (action === "send") return send(tally, args, print);
  if (action === "set") return set(tally, args, print);
  throw new UsageError(USAGE);
}
