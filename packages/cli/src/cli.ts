import { createTally, TallyError, ValidationError } from "@tally-analytics/core";
import { UsageError, parseArgs } from "./args.js";
import { copyCommand } from "./commands/copy.js";
import { exportCommand } from "./commands/export.js";
import { importCommand } from "./commands/import.js";
import { keys } from "./commands/keys.js";
import { reports } from "./commands/reports.js";
import { serve } from "./commands/serve.js";
import { websites } from "./commands/websites.js";
import { serveConfig, tallyOptions } from "./config.js";

const HELP = `usage: tally <command>

  serve                                  run the server (PORT, HOST, DATABASE_URL, TALLY_API_KEY,
                                         TRUST_PROXY, GEOIP_DB, RATE_LIMIT, SMTP_URL, MAIL_FROM,
                                         PUBLIC_URL from the environment)
  keys create [--name N] [--account ID]  create an account (or a key for one) and print its key
  keys revoke KEY_PREFIX                 revoke a key by its first characters
  websites list [--account ID] [--json]  list websites
  migrate                                create or update the database tables
  reports send [--period week|month] [--account ID] [--dry-run] [--to ADDRESS]
                                         send each account's e-mail report of the last full
                                         period now (--dry-run prints its text instead)
  reports set --account ID [--email ADDRESS] [--period week|month]
                                         where an account's reports go, and how often
  import FILE --website ID [--dry-run] [--from DAY] [--to DAY] [--json]
                                         import a Plausible, GoatCounter or Umami export (or Tally's own)
  export --website ID [--format csv|plausible] [--from DAY] [--to DAY] [--output FILE|-]
                                         write a website's daily statistics as a zip
  copy --from URL --to URL [--force]     copy the whole installation into another database`;

type Env = Record<string, string | undefined>;

/** Runs one command; returns the process exit code. */
export async function run(argv: readonly string[], env: Env = process.env, print = console.log): Promise<number> {
  const args = parseArgs(argv);
  const command = args.positional[0];
  try {
    if (command === "serve") {
      await serve(serveConfig(env), print);
      return 0;
    }
    if (command === "copy") {
      await copyCommand(args, print);
      return 0;
    }
    if (command !== "keys" && command !== "websites" && command !== "migrate" && command !== "import" && command !== "export" && command !== "reports") {
      print(HELP);
      return command === undefined || command === "help" || args.flags.has("help") ? 0 : 2;
    }
    const tally = createTally({ ...tallyOptions(env), flushIntervalMs: 60_000, reportIntervalMs: 0 });
    try {
      await tally.ready();
      if (command === "keys") await keys(tally, args, print);
      else if (command === "websites") await websites(tally, args, print);
      else if (command === "reports") await reports(tally, args, print);
      else if (command === "import") await importCommand(tally, args, print);
      else if (command === "export") await exportCommand(tally, args, print);
      else print("The database is up to date.");
    } finally {
      await tally.close();
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) console.error(error.message);
    else if (error instanceof ValidationError) console.error(Object.values(error.errors).flat().join("\n"));
    else if (error instanceof TallyError) console.error(error.message);
    else console.error(error instanceof Error ? `tally: ${error.message}` : error);
    return error instanceof UsageError || error instanceof TallyError ? 2 : 1;
  }
}
