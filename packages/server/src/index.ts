export { createHandler } from "./handler.js";
export type { Authenticate, HandlerContext, HandlerOptions, HostAccess, SsoOptions, TallyHandler } from "./options.js";
export type { RateLimitOptions } from "./rate-limit.js";
export type { ErrorReporter } from "./errors.js";
export { openApiDocument, type OpenApiDocument } from "./api/document.js";
