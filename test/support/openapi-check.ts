import { dereference } from "@readme/openapi-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { createOpenApiDocument, routes } from "@tally-analytics/server/internal";

/**
 * Every answer the HTTP matrix receives is checked against the OpenAPI document the
 * server publishes (built from the same route table): the status must be declared for
 * that path and method, a JSON body must match its schema (no undeclared field: response
 * schemas forbid additional properties), other bodies must have a declared media type,
 * and required headers must be there. An unknown path must answer the document's
 * `NotFound`, a known path with another method its `MethodNotAllowed` with `Allow`.
 *
 * Answers the host app gives itself (Express's body parsers, Fastify's URL check) are
 * marked `x-answered-by: host` by the test transports and are not Tally's to document.
 */

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
}
interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean }>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
type PathItem = Partial<Record<string, Operation>>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

interface CompiledDocument {
  paths: { template: string; pattern: RegExp; item: PathItem }[];
  components: Record<string, ResponseObject>;
  validator(schema: Json): ValidateFunction;
}

async function compileDocument(): Promise<CompiledDocument> {
  const document = (await dereference(structuredClone(createOpenApiDocument(routes, "http://tally.test")) as never)) as unknown as {
    paths: Record<string, PathItem>;
    components: { responses: Record<string, ResponseObject> };
  };
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addKeyword("example");
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  const validators = new WeakMap<Json, ValidateFunction>();
  return {
    paths: Object.entries(document.paths).map(([template, item]) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{\w+\\?\}/g, "[^/]+")}$`),
      item,
    })),
    components: document.components.responses,
    validator(schema) {
      let validate = validators.get(schema);
      if (!validate) validators.set(schema, (validate = ajv.compile(schema)));
      return validate;
    },
  };
}

let compiled: Promise<CompiledDocument> | undefined;

/** The path the router sees: after the mount, no trailing slash (but `/`). */
function routedPath(url: URL, base: URL): string {
  const mount = base.pathname.replace(/\/+$/, "");
  const path = url.pathname.slice(mount.length) || "/";
  return path.length > 1 ? path.replace(/\/$/, "") : path;
}

export class UndocumentedAnswer extends Error {
  override name = "UndocumentedAnswer";
}

function checkAnswer(
  doc: CompiledDocument,
  where: string,
  declared: ResponseObject,
  response: Response,
  text: string,
  method: string,
): void {
  const fail = (message: string) => {
    throw new UndocumentedAnswer(`${where} answered ${response.status}: ${message}\n${text.slice(0, 500)}`);
  };
  for (const [name, header] of Object.entries(declared.headers ?? {})) {
    if (header.required && !response.headers.has(name)) fail(`the document requires the header ${name}`);
  }
  const type = (response.headers.get("content-type") ?? "").split(";", 1)[0]!.trim().toLowerCase();
  if (method === "HEAD" || text === "") {
    if (text === "" && method !== "HEAD" && declared.content && !type) fail("no body, but the document declares one");
    return;
  }
  const media = declared.content?.[type];
  if (!media)
    fail(`its ${type || "untyped"} body is not declared (declared: ${Object.keys(declared.content ?? {}).join(", ") || "no body"})`);
  if (type !== "application/json" || !media?.schema) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    fail("the body is not JSON");
  }
  const validate = doc.validator(media.schema);
  if (!validate(body)) fail(`the body does not match the document: ${JSON.stringify(validate.errors?.slice(0, 5))}`);
}

/** Throws UndocumentedAnswer when `response` (to `method` on `url`, Tally mounted at `base`) is not what the document says. */
export async function checkAgainstDocument(base: string, url: URL, method: string, response: Response): Promise<void> {
  if (response.headers.get("x-answered-by") === "host") return;
  const doc = await (compiled ??= compileDocument());
  const text = method === "HEAD" ? "" : await response.clone().text();
  const path = routedPath(url, new URL(base));
  const matching = doc.paths.filter(({ pattern }) => pattern.test(path));
  const verb = method.toLowerCase();
  const found = matching.find(({ item }) => item[verb] ?? (verb === "head" ? item.get : undefined));
  if (!found) {
    const component = matching.length === 0 ? "NotFound" : "MethodNotAllowed";
    const where = `${method} ${path} (${matching.length === 0 ? "no such path" : "not a method of this path"})`;
    const expected = component === "NotFound" ? 404 : 405;
    if (response.status !== expected)
      throw new UndocumentedAnswer(`${where} answered ${response.status}, not ${expected} (${component})\n${text.slice(0, 500)}`);
    checkAnswer(doc, where, doc.components[component]!, response, text, method);
    if (expected === 405) {
      const methods = new Set(matching.flatMap(({ item }) => METHODS.filter((name) => item[name]).map((name) => name.toUpperCase())));
      if (methods.has("GET")) methods.add("HEAD");
      const allow = new Set((response.headers.get("allow") ?? "").split(",").map((name) => name.trim()));
      if ([...methods].sort().join() !== [...allow].sort().join())
        throw new UndocumentedAnswer(`${where}: Allow is ${[...allow]}, the document says ${[...methods]}`);
    }
    return;
  }
  const operation = (found.item[verb] ?? found.item.get)!;
  const where = `${method} ${found.template}`;
  const declared = operation.responses[String(response.status)];
  if (!declared) {
    throw new UndocumentedAnswer(
      `${where} answered ${response.status}, which the document does not declare (it declares ${Object.keys(operation.responses).join(", ")})\n${text.slice(0, 500)}`,
    );
  }
  checkAnswer(doc, where, declared, response, text, method);
}
