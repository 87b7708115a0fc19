import { ConfigError, defineCommand } from "../command.js";
import { periodFrom } from "../report-values.js";
import { findAccount, idFrom } from "../values.js";

/** `tally reports send [--period week|month] [--account ID] [--dry-run] [--to ADDRESS]` */
export const reportsSend = defineCommand({
  name: "reports send",
  summary: "send each account's e-mail report of the last full period now (--dry-run prints it)",
  description: "Outside the schedule: nothing is recorded, the scheduled reports still go out.",
  options: {
    period: { type: "string", value: "week|month", description: "the period to report (default: each account's own)" },
    account: { type: "string", value: "ID", description: "only this account (default: every account)" },
    "dry-run": { type: "boolean", description: "print the report's text instead of sending it" },
    to: { type: "string", value: "ADDRESS", description: "send to this address instead of the account's" },
  },
  environment: ["DATABASE_URL", "SMTP_URL", "MAIL_FROM", "PUBLIC_URL"],
  async run({ values, tally, print }) {
    const period = periodFrom(values.period);
    const opened = await tally();
    if (!values["dry-run"] && !opened.options.mail)
      throw new ConfigError("E-mail is not configured: set SMTP_URL and MAIL_FROM (or preview with --dry-run).");
    const accounts =
      values.account === undefined ? await opened.accounts.list() : [await findAccount(opened, idFrom("--account", values.account))];
    const options = { ...(period === undefined ? {} : { period }), ...(values.to === undefined ? {} : { to: values.to }) };
    for (const account of accounts) {
      const report = values["dry-run"] ? await opened.reports.build(account.id, options) : await opened.reports.send(account.id, options);
      if (report === null) print(`Account ${account.id}: no website has e-mail reports on (set email to 1 on a website).`);
      else if (values["dry-run"]) print(`To: ${values.to ?? report.to ?? "(no address)"}\nSubject: ${report.subject}\n\n${report.text}`);
      else if (report.to === null)
        print(`Account ${account.id}: no address (tally reports set --account ${account.id} --email ADDRESS, or --to).`);
      else print(`Account ${account.id}: sent "${report.subject}" to ${report.to}.`);
    }
  },
});
