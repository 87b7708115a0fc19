import { routes } from "./routes.js";
import { createOpenApiDocument, type OpenApiDocument } from "./api/openapi.js";

export type { OpenApiDocument };

/**
 * The OpenAPI 3.1 document of Tally's HTTP API (what `{base}/api/v1/openapi.json` serves),
 * for tools and code generators. `serverUrl` is where Tally is mounted.
 * @param serverUrl @default "/"
 */
export function openApiDocument(serverUrl = "/"): OpenApiDocument {
  return createOpenApiDocument(routes, serverUrl);
}
