export { run } from "./cli.js";
export { serve } from "./commands/serve.js";
export { serveConfig, tallyOptions, parseTrustProxy, type ServeConfig } from "./config.js";
