import { createHash } from "node:crypto";
import type { OpenApiDocument } from "./openapi.js";
import { escapeHtml, htmlDocument } from "@tally-analytics/core/internal";
import { PAGE_HEAD } from "../http/html.js";
import { DOCS_CSS } from "./docs-style.js";

// The API reference as one static HTML page, rendered on the server from the OpenAPI
// document: no script, no CDN, styles inline under a hash-pinned CSP.

type Json = Record<string, unknown>;
type Schema = Json;

const METHODS = ["get", "post", "put", "patch", "delete", "options", "head"] as const;

/** The little Markdown the descriptions use: `code`, **bold**, paragraphs and `- ` lists. */
function markdown(text: string | undefined): string {
  if (!text) return "";
  const inline = (line: string) =>
    escapeHtml(line)
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  const blocks: string[] = [];
  let items: string[] = [];
  const flush = () => {
    if (items.length > 0) blocks.push(`<ul class="plain">${items.map((item) => `<li>${inline(item)}</li>`).join("")}</ul>`);
    items = [];
  };
  for (const line of text.split("\n")) {
    if (line.startsWith("- ")) items.push(line.slice(2));
    else if (line.startsWith("  ") && items.length > 0) items[items.length - 1] += ` ${line.trim()}`;
    else {
      flush();
      if (line.trim() !== "") blocks.push(`<p>${inline(line)}</p>`);
    }
  }
  flush();
  return blocks.join("\n");
}

const refName = (schema: Schema) => (typeof schema.$ref === "string" ? (schema.$ref.split("/").pop() ?? "") : null);
/** An array's item schema; a tuple (`prefixItems`, `items: false`) has none. */
const itemsOf = (schema: Schema): Schema | null =>
  typeof schema.items === "object" && schema.items !== null ? (schema.items as Schema) : null;
const tupleOf = (schema: Schema): Schema[] | null => (Array.isArray(schema.prefixItems) ? (schema.prefixItems as Schema[]) : null);
const anchor = (kind: string, name: string) => `${kind}-${name.replace(/[^\w-]/g, "-")}`;

function createRenderer(document: OpenApiDocument) {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Schema>;
  const resolve = (schema: Schema): Schema => {
    const name = refName(schema);
    return name === null ? schema : (schemas[name] ?? {});
  };

  /** A schema as a short type: `string`, `0 | 1 | 2`, `array of StatRow`, a link for components. */
  function typeText(schema: Schema): string {
    const name = refName(schema);
    if (name !== null) return `<a href="#${anchor("schema", name)}">${escapeHtml(name)}</a>`;
    const options = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
    if (options) return options.map(typeText).join(" | ");
    if ("const" in schema) return `<code>${escapeHtml(JSON.stringify(schema.const))}</code>`;
    if (Array.isArray(schema.enum)) return schema.enum.map((value) => `<code>${escapeHtml(JSON.stringify(value))}</code>`).join(" | ");
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
    return types
      .map((type) => {
        const tuple = tupleOf(schema);
        if (type === "array" && tuple) return `[${tuple.map(typeText).join(", ")}]`;
        if (type === "array") return `array of ${typeText(itemsOf(schema) ?? {})}`;
        if (type === "object" && schema.additionalProperties && typeof schema.additionalProperties === "object") {
          return `map of ${typeText(schema.additionalProperties as Schema)}`;
        }
        return escapeHtml(type ?? "any");
      })
      .join(" | ");
  }

  function constraints(schema: Schema): string {
    const notes: string[] = [];
    const note = (label: string, key: string) => {
      if (schema[key] !== undefined) notes.push(`${label} <code>${escapeHtml(JSON.stringify(schema[key]))}</code>`);
    };
    note("format", "format");
    note("max length", "maxLength");
    note("minimum", "minimum");
    note("maximum", "maximum");
    note("pattern", "pattern");
    note("default", "default");
    note("example", "example");
    return notes.length > 0 ? `<div class="muted">${notes.join(" · ")}</div>` : "";
  }

  /** An object's fields as a table; other schemas as their type. */
  function fields(schema: Schema): string {
    const resolved = resolve(schema);
    const properties = resolved.properties as Record<string, Schema> | undefined;
    if (!properties) return `<p>${typeText(schema)}</p>`;
    const required = new Set((resolved.required as string[] | undefined) ?? []);
    const rows = Object.entries(properties).map(
      ([name, property]) =>
        `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? '<span class="req">required</span>' : ""}</td><td>${typeText(property)}</td><td>${markdown(property.description as string | undefined)}${constraints(property)}</td></tr>`,
    );
    return `<table><tr><th>field</th><th>type</th><th>meaning</th></tr>${rows.join("")}</table>`;
  }

  /** A sample value from the schema's examples, defaults and types. */
  function example(schema: Schema, depth = 0): unknown {
    const resolved = resolve(schema);
    if (depth > 6) return null;
    if (resolved.example !== undefined) return resolved.example;
    if (resolved.default !== undefined) return resolved.default;
    if ("const" in resolved) return resolved.const;
    if (Array.isArray(resolved.enum)) return resolved.enum[0];
    const options = (resolved.anyOf ?? resolved.oneOf) as Schema[] | undefined;
    if (options?.[0]) return example(options[0], depth + 1);
    const type = Array.isArray(resolved.type) ? resolved.type[0] : resolved.type;
    if (type === "object" && resolved.properties) {
      return Object.fromEntries(
        Object.entries(resolved.properties as Record<string, Schema>).map(([name, property]) => [name, example(property, depth + 1)]),
      );
    }
    const tuple = tupleOf(resolved);
    if (type === "array" && tuple) return tuple.map((item) => example(item, depth + 1));
    if (type === "array") return [example(itemsOf(resolved) ?? {}, depth + 1)];
    return { string: "…", number: 0, integer: 1, boolean: true, object: {} }[type as string] ?? null;
  }

  const exampleBlock = (schema: Schema) =>
    `<details><summary>Example</summary><pre>${escapeHtml(JSON.stringify(example(schema), null, 2))}</pre></details>`;

  function parameters(list: Json[]): string {
    if (list.length === 0) return "";
    const rows = list.map((parameter) => {
      const schema = (parameter.schema as Schema | undefined) ?? {};
      return `<tr><td><code>${escapeHtml(String(parameter.name))}</code>${parameter.required ? '<span class="req">required</span>' : ""}</td><td>${escapeHtml(String(parameter.in))}</td><td>${typeText(schema)}</td><td>${markdown(parameter.description as string | undefined)}${constraints({ ...schema, description: undefined })}</td></tr>`;
    });
    return `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>type</th><th>meaning</th></tr>${rows.join("")}</table>`;
  }

  function content(body: Json | undefined): string {
    const media = (body?.content ?? {}) as Record<string, { schema?: Schema }>;
    const types = Object.keys(media);
    if (types.length === 0) return "";
    const schema = media[types[0] as string]?.schema ?? {};
    const isJson = types.some((type) => type.includes("json") || type.includes("form"));
    return `<p class="muted">${types.map((type) => `<code>${escapeHtml(type)}</code>`).join(" ")}</p>${isJson ? fields(schema) + exampleBlock(schema) : markdown(schema.description as string | undefined)}`;
  }

  const responseComponents = (document.components?.responses ?? {}) as Record<string, Json>;

  function response(status: string, given: Json): string {
    const name = refName(given);
    const answer = name === null ? given : (responseComponents[name] ?? {});
    const headers = Object.entries((answer.headers ?? {}) as Record<string, Json>)
      .map(
        ([header, value]) =>
          `<li><code>${escapeHtml(header)}</code>: ${markdown(String(value.description ?? "")).replace(/^<p>|<\/p>$/g, "")}</li>`,
      )
      .join("");
    return `<details${status.startsWith("2") ? " open" : ""}><summary><span class="status">${escapeHtml(status)}</span> ${markdown(String(answer.description ?? "")).replace(/^<p>|<\/p>$/g, "")}</summary>${headers ? `<ul class="plain">${headers}</ul>` : ""}${content(answer)}</details>`;
  }

  function operation(path: string, method: string, op: Json): string {
    const security = (op.security as Json[] | undefined) ?? [];
    const auth =
      security.length === 0
        ? "Public."
        : security.some((item) => Object.keys(item).length === 0)
          ? "Public; the owner's key or the share cookie may open more."
          : "Needs an API key: <code>Authorization: Bearer &lt;key&gt;</code>.";
    const responses = Object.entries(op.responses as Record<string, Json>)
      .map(([status, answer]) => response(status, answer))
      .join("");
    const body = op.requestBody as Json | undefined;
    return `<section class="card" id="${anchor("op", String(op.operationId))}">
<div class="op-title"><span class="method ${method}">${method}</span><code>${escapeHtml(path)}</code></div>
<h3>${escapeHtml(String(op.summary ?? ""))}</h3>${markdown(op.description as string | undefined)}<p class="muted">${auth}</p>
${parameters((op.parameters as Json[] | undefined) ?? [])}${body ? `<h4>Body</h4>${content(body)}` : ""}<h4>Responses</h4>${responses}
</section>`;
  }

  return { operation, fields, exampleBlock, typeText };
}

function operations(document: OpenApiDocument) {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((method) => (item as Json)[method]).map((method) => ({ path, method, op: (item as Json)[method] as Json })),
  );
}

/** The reference's navigation, introduction and content (every tag with its operations, then the schemas). */
export function renderReference(document: OpenApiDocument): { nav: string; intro: string; content: string } {
  const render = createRenderer(document);
  const all = operations(document);
  const tags = (document.tags ?? []).map((tag) => ({
    ...tag,
    ops: all.filter(({ op }) => (op.tags as string[] | undefined)?.[0] === tag.name),
  }));
  const nav = tags
    .map(
      (tag) =>
        `<h2>${escapeHtml(tag.name)}</h2><ul>${tag.ops
          .map(
            ({ path, method, op }) =>
              `<li><a href="#${anchor("op", String(op.operationId))}"><span class="method ${method}">${method}</span>${escapeHtml(path)}</a></li>`,
          )
          .join("")}</ul>`,
    )
    .join("");
  const sections = tags
    .map(
      (tag) =>
        `<h2 id="${anchor("tag", tag.name)}">${escapeHtml(tag.name)}</h2>${markdown(tag.description)}${tag.ops.map(({ path, method, op }) => render.operation(path, method, op)).join("\n")}`,
    )
    .join("\n");
  const schemaNames = Object.keys(document.components?.schemas ?? {});
  const schemas = Object.entries((document.components?.schemas ?? {}) as Record<string, Schema>)
    .map(
      ([name, schema]) =>
        `<section class="card" id="${anchor("schema", name)}"><h3>${escapeHtml(name)}</h3>${markdown(schema.description as string | undefined)}${render.fields({ $ref: `#/components/schemas/${name}` })}${render.exampleBlock(schema)}</section>`,
    )
    .join("\n");
  return {
    nav: `${nav}<h2>Schemas</h2><ul>${schemaNames.map((name) => `<li><a href="#${anchor("schema", name)}">${escapeHtml(name)}</a></li>`).join("")}</ul>`,
    intro: markdown(document.info.description),
    content: `${sections}\n<h2 id="schemas">Schemas</h2>\n${schemas}`,
  };
}

/** The whole page. */
export function renderDocsPage(document: OpenApiDocument): string {
  const { nav, intro, content } = renderReference(document);
  return htmlDocument({
    title: `${document.info.title} reference`,
    head: [...PAGE_HEAD, `<style>${DOCS_CSS}</style>`],
    body: `<nav><a href="#top"><strong>${escapeHtml(document.info.title)}</strong></a> <span class="muted">${escapeHtml(document.info.version)}</span>${nav}</nav>
<main id="top">
<h1>${escapeHtml(document.info.title)}</h1>
<p class="muted">OpenAPI ${escapeHtml(document.openapi)} · <a href="v1/openapi.json">openapi.json</a> · base URL <code>${escapeHtml(document.servers?.[0]?.url ?? "")}</code></p>
${intro}
${content}
</main>`,
  });
}

/** The page's CSP: nothing but its own inline styles (pinned by hash), no script at all. */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(DOCS_CSS).digest("base64")}'`,
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'self'",
].join("; ");
