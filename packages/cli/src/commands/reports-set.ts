import { defineCommand, UsageError } from "../command.js";
import { periodFrom, reportSettings } from "../report-values.js";
import { findAccount, idFrom } from "../values.js";

/** `tally reports set --account ID [--email ADDRESS] [--period week|month]` */
export const reportsSet = defineCommand({
  name: "reports set",
  summary: "where an account's e-mail reports go, and how often",
  description: 'Only what is given changes; --email "" removes the address (no reports are sent then).',
  options: {
    account: { type: "string", value: "ID", description: "the account (required)", required: true },
    email: { type: "string", value: "ADDRESS", description: 'where its reports go ("" for nowhere)' },
    period: { type: "string", value: "week|month", description: "how often they are sent" },
  },
  environment: ["DATABASE_URL"],
  async run({ values, tally, print }) {
    if (values.account === undefined) throw new UsageError("--account is required");
    const accountId = idFrom("--account", values.account);
    const period = periodFrom(values.period);
    const opened = await tally();
    await findAccount(opened, accountId);
    const account = await opened.accounts.update(accountId, {
      ...(values.email === undefined ? {} : { email: values.email }),
      ...(period === undefined ? {} : { report_period: period }),
    });
    print(reportSettings(account));
  },
});
