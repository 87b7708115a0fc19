/**
 * For Tally's own packages and tests: the public API and what they need beside it.
 * Not a stable interface: it changes with them.
 */
export * from "./index.js";
export { routes } from "./routes.js";
export { createOpenApiDocument, impliedStatuses } from "./api/openapi.js";
export { renderReference } from "./api/docs-page.js";
export { addressKey, proxyTrust } from "./http/client-ip.js";
export { permissionOf } from "./http/permissions.js";
export { serveMcpOverStdio } from "./mcp/mcp-route.js";
