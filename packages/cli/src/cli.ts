import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createTally, NotFoundError, TallyError, ValidationError, type Tally } from "@tally-analytics/core";
import {
  CommandError,
  ConfigError,
  UsageError,
  whenReady,
  type Command,
  type Env,
  type OptionSpecs,
  type OptionValues,
  type Print,
} from "./command.js";
import { COMMANDS } from "./commands/index.js";
import { tallyOptionsFor } from "./config.js";
import { parseDatabaseUrl } from "@tally-analytics/core/internal";
import { commandHelp, overviewHelp } from "./help.js";

/** The version of this package (`tally --version`). */
export function version(): string {
  return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

const isHelp = (arg: string) => arg === "--help" || arg === "-h";

/** What the words of a command line name: a command (and what follows it), or a group's help. */
type Resolved = { command: Command; rest: string[] } | { group: string };

/** The command whose name is the longest run of leading words; a UsageError naming what is unknown. */
function resolve(argv: readonly string[]): Resolved {
  let found: { command: Command; length: number } | undefined;
  for (const command of COMMANDS) {
    const words = command.name.split(" ");
    if (words.every((word, i) => argv[i] === word) && words.length > (found?.length ?? 0)) found = { command, length: words.length };
  }
  if (found) return { command: found.command, rest: argv.slice(found.length) };
  const group = argv[0]!;
  const members = COMMANDS.filter((command) => command.name.startsWith(`${group} `)).map((command) => command.name);
  if (members.length === 0) throw new UsageError(`unknown command "${group}"`);
  if (argv[1] === undefined) throw new UsageError(`"${group}" needs a command: ${members.join(", ")}`);
  if (isHelp(argv[1])) return { group };
  throw new UsageError(`unknown command "${group} ${argv[1]}" (${group} commands: ${members.join(", ")})`);
}

/** parseArgs' errors, in a few words naming the option; for serve, which variable to set instead. */
function optionProblem(error: unknown, command: Command): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const name = /'(-{1,2}[^' =]+)/.exec(message)?.[1] ?? "";
  const spec = command.options[name.replace(/^-+/, "")];
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const variable = name.replace(/^-+/, "").replace(/-/g, "_").toUpperCase();
    const hint = command.environment?.includes(variable) ? `; set ${variable} in the environment instead` : "";
    return `unknown option ${name}${hint}`;
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && spec)
    return spec.type === "boolean" ? `${name} takes no value` : `${name} needs a value`;
  return message;
}

/** Options and positional arguments, strictly: an unknown option, a missing value or argument is a UsageError. */
function parseCommandLine(
  command: Command,
  rest: readonly string[],
): { values: Record<string, string | boolean | undefined>; args: string[] } {
  const options: Record<string, { type: "string" | "boolean" }> = {};
  for (const [name, spec] of Object.entries(command.options as OptionSpecs)) options[name] = { type: spec.type };
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...rest], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(optionProblem(error, command));
  }
  const names = command.arguments ?? [];
  const required = names.filter((name) => !name.startsWith("["));
  if (parsed.positionals.length < required.length) throw new UsageError(`missing ${required.slice(parsed.positionals.length).join(" ")}`);
  if (parsed.positionals.length > names.length) throw new UsageError(`unexpected argument "${parsed.positionals[names.length]}"`);
  return { values: parsed.values, args: parsed.positionals };
}

/** A ConfigError when DATABASE_URL names a SQLite file that is not there. */
function refuseMissingFile(database: unknown): void {
  if (typeof database !== "string") return;
  const location = parseDatabaseUrl(database);
  if (location.dialect === "sqlite" && location.path !== ":memory:" && !existsSync(location.path)) {
    throw new ConfigError(`DATABASE_URL: no database at ${location.path} (tally serve, tally migrate or tally keys create makes one)`);
  }
}

/** Runs a command with Tally opened on first use (DATABASE_URL) and always closed afterwards. */
async function execute(command: Command, rest: readonly string[], env: Env, print: Print): Promise<void> {
  const { values, args } = parseCommandLine(command, rest);
  let opened: Tally | undefined;
  const tally = async () => {
    if (!opened) {
      const options = tallyOptionsFor(env, command.environment ?? []);
      if (!command.createsDatabase) refuseMissingFile(options.database);
      // A short-lived command: no schedules (retention, reports, alerts), nothing collected to flush.
      opened = createTally({
        ...options,
        flushIntervalMs: 60_000,
        retentionIntervalMs: 0,
        reportIntervalMs: 0,
        alerts: { intervalMs: 0 },
      });
    }
    return whenReady(opened);
  };
  try {
    // parseArgs gave each option the type its spec names: the command's own typing holds.
    await command.run({ values: values as OptionValues<OptionSpecs>, args, env, print, tally });
  } finally {
    await opened?.close();
  }
}

/** One line on standard error for any failure (the stack too with DEBUG set); the exit code. */
function report(error: unknown, label: string, env: Env, printError: Print): number {
  const message = error instanceof Error ? error.message : String(error);
  let code = 1;
  if (error instanceof UsageError) {
    printError(`${label}: ${message} (see ${label} --help)`);
    code = 2;
  } else if (error instanceof ConfigError) {
    printError(`tally: ${message}`);
    code = 2;
  } else if (error instanceof ValidationError || error instanceof NotFoundError) {
    const detail = error instanceof ValidationError ? Object.values(error.errors).flat().join(" ") : message;
    printError(`${label}: ${detail}`);
    code = 2;
  } else if (error instanceof CommandError || error instanceof TallyError) {
    printError(`tally: ${message}`);
  } else {
    printError(`tally: ${message}${env.DEBUG ? "" : " (DEBUG=1 shows where)"}`);
  }
  // With DEBUG: where it happened, and what it was caused by.
  for (let cause = error; env.DEBUG && cause instanceof Error; cause = cause.cause) {
    printError(`${cause === error ? "" : "caused by: "}${cause.stack ?? cause.message}`);
  }
  return code;
}

/**
 * Runs one command line (`argv` without `node tally`); returns the exit code: 0 done,
 * 1 failed, 2 a command line or environment that cannot work. `--help` anywhere before
 * `--` prints help and never runs the command.
 */
export async function run(
  argv: readonly string[],
  env: Env = process.env,
  print: Print = console.log,
  printError: Print = console.error,
): Promise<number> {
  let label = "tally";
  try {
    const first = argv[0];
    if (first === undefined || isHelp(first) || (first === "help" && argv.length === 1)) {
      print(overviewHelp(COMMANDS));
      return 0;
    }
    if (first === "--version" || first === "-v") {
      print(version());
      return 0;
    }
    if (first === "help") return run([...argv.slice(1), "--help"], env, print, printError);
    if (first.startsWith("-")) throw new UsageError(`unknown option ${first}`);
    const resolved = resolve(argv);
    if ("group" in resolved) {
      print(overviewHelp(COMMANDS, resolved.group));
      return 0;
    }
    const { command, rest } = resolved;
    label = `tally ${command.name}`;
    const end = rest.indexOf("--");
    if ((end === -1 ? rest : rest.slice(0, end)).some(isHelp)) {
      print(commandHelp(command));
      return 0;
    }
    await execute(command, rest, env, print);
    return 0;
  } catch (error) {
    return report(error, label, env, printError);
  }
}
