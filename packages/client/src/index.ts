export { createClient, type ShareClient, type TallyClient, type TallyClientOptions } from "./client.js";
export { isTallyApiError, TallyApiError } from "./errors.js";
export type * from "./types.js";
export type { components, operations, paths } from "./api-types.js";
