export { createHandler } from "./handler.js";
export { countPageviews, type PageviewContext, type PageviewOptions } from "./pageviews.js";
export type { Authenticate, HandlerContext, HandlerOptions, HostAccess, SsoOptions, TallyHandler } from "./http/options.js";
export type { RateLimitOptions } from "./http/rate-limit.js";
export type { ErrorReporter } from "./http/errors.js";
export { openApiDocument, type OpenApiDocument } from "./openapi-document.js";
