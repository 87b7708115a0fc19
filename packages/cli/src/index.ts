export { run, version } from "./cli.js";
export { serve } from "./commands/serve.js";
export { COMMANDS } from "./commands/index.js";
export { defineCommand, UsageError, ConfigError, CommandError } from "./command.js";
export type { Command, CommandContext, OptionSpec, OptionSpecs, OptionValues } from "./command.js";
export { serveConfig, type ServeConfig } from "./config.js";
