import type { Command } from "./command.js";
import { DEFAULT_DATABASE_URL, SERVE_ENVIRONMENT } from "./config.js";

const HELP_OPTION = { flag: "-h, --help", text: "show this help (the command does not run)" };

/** Two columns, the first padded to its widest entry. */
function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}

/** `keys create [--name NAME] [--account ID]` */
function usageLine(command: Command): string {
  const args = (command.arguments ?? []).map((name) => ` ${name}`).join("");
  const options = Object.entries(command.options)
    .map(([name, option]) => {
      const text = `--${name}${option.type === "string" ? ` ${option.value ?? "VALUE"}` : ""}`;
      return option.required ? ` ${text}` : ` [${text}]`;
    })
    .join("");
  return `tally ${command.name}${args}${options}`;
}

/** `tally <command> --help` */
export function commandHelp(command: Command): string {
  const lines = [`usage: ${usageLine(command)}`, "", command.summary.charAt(0).toUpperCase() + command.summary.slice(1) + "."];
  if (command.description) lines.push(command.description);
  const options = Object.entries(command.options).map(
    ([name, option]) => [`--${name}${option.type === "string" ? ` ${option.value ?? "VALUE"}` : ""}`, option.description] as const,
  );
  lines.push("", "Options:", ...columns([...options, [HELP_OPTION.flag, HELP_OPTION.text]]));
  const environment = command.environment ?? [];
  if (environment.length > 0) {
    lines.push("", "Environment:", ...columns(environment.map((name) => [name, SERVE_ENVIRONMENT[name] ?? ""] as const)));
  }
  return lines.join("\n");
}

/** `tally --help`, or the commands of one group (`tally keys --help`). */
export function overviewHelp(commands: readonly Command[], group?: string): string {
  const shown = group === undefined ? commands : commands.filter((command) => command.name.startsWith(`${group} `));
  const rows = shown.map(
    (command) => [`${command.name}${(command.arguments ?? []).map((name) => ` ${name}`).join("")}`, command.summary] as const,
  );
  return [
    `usage: tally ${group === undefined ? "<command>" : `${group} <command>`} [options]`,
    "",
    "Commands:",
    ...columns(rows),
    "",
    "Options:",
    ...columns([
      [HELP_OPTION.flag, "show help; after a command, that command's options (it does not run)"],
      ["-v, --version", "print the version"],
    ]),
    "",
    `Every command reads DATABASE_URL (default ${DEFAULT_DATABASE_URL}); \`tally serve --help\` lists the rest.`,
  ].join("\n");
}
