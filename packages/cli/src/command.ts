import type { Tally } from "@tally-analytics/core";

export type Env = Record<string, string | undefined>;
export type Print = (line: string) => void;

/** One `--option` of a command, as `node:util` parseArgs takes it, with what help shows. */
export interface OptionSpec {
  type: "string" | "boolean";
  /** What help says the option does. */
  description: string;
  /** The value's placeholder in help, for string options: `--account ID`. */
  value?: string;
  /** The command refuses to run without it: the usage line shows it without brackets. */
  required?: true;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** Parsed options: a string option's value, or whether a boolean one was given. */
export type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : string;
};

export interface CommandContext<O extends OptionSpecs> {
  values: OptionValues<O>;
  /** The positional arguments, in the order `Command.arguments` names them (optional ones may be missing). */
  args: readonly string[];
  env: Env;
  /** A line on standard output. */
  print: Print;
  /** Tally on DATABASE_URL, opened (and migrated) on first use, closed when the command ends. */
  tally(): Promise<Tally>;
}

/**
 * A `tally` command: one file in `commands/`, listed once in `commands/index.ts`.
 * Everything `--help`, the usage line and argument checking need is here.
 */
export interface Command<O extends OptionSpecs = OptionSpecs> {
  /** The words after `tally`: `"keys create"`. */
  name: string;
  /** One line for the command list. */
  summary: string;
  /** More help, printed below the usage line (what it does, what it prints). */
  description?: string;
  /** Positional arguments for the usage line; `[NAME]` is optional: `["KEY_PREFIX"]`. */
  arguments?: readonly string[];
  options: O;
  /** Environment variables the command reads, for help. */
  environment?: readonly string[];
  /**
   * Makes the SQLite file of DATABASE_URL when there is none (`migrate`, `keys create`: the
   * first account). Other commands refuse a file that is not there: a mistyped path would
   * otherwise answer from a new, empty database.
   */
  createsDatabase?: true;
  run(context: CommandContext<O>): Promise<void>;
}

/** Keeps the option types of a command literal (so `values` is typed). */
export function defineCommand<const O extends OptionSpecs>(command: Command<O>): Command<O> {
  return command;
}

/** A command line that cannot run: exit 2, with a pointer to the command's help. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** An environment variable that makes no sense: exit 2, one line, before anything starts. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** An expected failure (a port in use, a database that cannot be opened): exit 1, one line, no stack. */
export class CommandError extends Error {
  override name = "CommandError";
}

/** Waits for Tally's database (and GeoIP files) to open; a failure is a CommandError with core's one sentence. */
export async function whenReady(tally: Tally): Promise<Tally> {
  await tally.ready().catch((error: unknown) => {
    throw new CommandError(error instanceof Error ? error.message : String(error), { cause: error });
  });
  return tally;
}
