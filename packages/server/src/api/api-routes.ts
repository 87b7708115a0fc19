import * as z from "zod";
import { defineRoute, type Route } from "../http/route.js";
import { DOCS_CONTENT_SECURITY_POLICY, renderDocsPage } from "./docs-page.js";
import { createOpenApiDocument, type OpenApiDocument } from "./openapi.js";

const DOCUMENT_PATH = "/api/v1/openapi.json";
const DOCS_PATH = "/api/docs";

/** The mount's public URL, from a request for `routePath` under it. */
function mountUrl(url: URL, routePath: string): string {
  const pathname = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${pathname.slice(0, pathname.length - routePath.length)}`;
}

/**
 * The document and its reference page: public, like the tracker (they describe the API,
 * not any account's data). Built once per mount URL from the route table the handler serves.
 */
export function documentationRoutes(table: () => readonly Route[]): Route[] {
  const cache = new Map<string, { document: OpenApiDocument; json: string; html?: string }>();
  const forMount = (url: URL, routePath: string) => {
    const server = mountUrl(url, routePath);
    let entry = cache.get(server);
    if (!entry) {
      // Bounded: a client can vary the Host header, so keep only the last few mounts.
      if (cache.size >= 8) cache.delete(cache.keys().next().value as string);
      const document = createOpenApiDocument(table(), server);
      entry = { document, json: JSON.stringify(document) };
      cache.set(server, entry);
    }
    return entry;
  };

  return [
    defineRoute({
      method: "GET",
      path: DOCUMENT_PATH,
      auth: "public",
      summary: "This OpenAPI 3.1 document",
      tag: "Documentation",
      description: "Generated from the route table and its zod schemas. Public, like the tracker: it describes the API, no account's data.",
      responses: {
        200: {
          description: "The document (an OpenAPI 3.1 object, without `status`).",
          schema: z.record(z.string(), z.unknown()).meta({ id: "OpenApiDocument" }),
        },
      },
      async handle({ request, url }) {
        const { json } = forMount(url, DOCUMENT_PATH);
        const headers = {
          "content-type": "application/json; charset=utf-8",
          "cache-control": "no-cache",
          "access-control-allow-origin": "*",
          "x-content-type-options": "nosniff",
        };
        return new Response(request.method === "HEAD" ? null : json, { status: 200, headers });
      },
    }),
    defineRoute({
      method: "GET",
      path: DOCS_PATH,
      auth: "public",
      summary: "The API reference (HTML)",
      tag: "Documentation",
      description: "This document as a static page: no script, works offline, light or dark as the system asks.",
      responses: { 200: { description: "The page.", media: { "text/html": "The reference." } } },
      async handle({ request, url }) {
        const entry = forMount(url, DOCS_PATH);
        entry.html ??= renderDocsPage(entry.document);
        const headers = {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-cache",
          "content-security-policy": DOCS_CONTENT_SECURITY_POLICY,
          "x-content-type-options": "nosniff",
          "referrer-policy": "same-origin",
        };
        return new Response(request.method === "HEAD" ? null : entry.html, { status: 200, headers });
      },
    }),
  ];
}
