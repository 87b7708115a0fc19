import { escapeHtml, htmlDocument } from "@tally-analytics/core/internal";
import { htmlPageHeaders, PAGE_HEAD } from "../http/html.js";
import { assetPath } from "../dashboard/assets.js";

/** No script at all on these pages: forms post to this origin only, and no page may frame them. */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

export interface FormField {
  name: string;
  label: string;
  type: "email" | "password" | "text" | "hidden";
  autocomplete?: string;
  value?: string;
  /** Shown under the field. */
  hint?: string;
  inputmode?: string;
}

export interface FormPage {
  title: string;
  /** Paragraphs above the form, plain text. */
  intro?: readonly string[];
  /** A refusal or an error, plain text, announced to screen readers. */
  error?: string;
  /** A confirmation, plain text. */
  notice?: string;
  fields?: readonly FormField[];
  button?: string;
  /** Links under the form: [href relative to the page, text]. */
  links?: readonly (readonly [string, string])[];
  status?: number;
  headers?: Record<string, string>;
}

function field({ name, label, type, autocomplete, value, hint, inputmode }: FormField): string {
  const attributes = [
    `id="${name}"`,
    `name="${name}"`,
    `type="${type}"`,
    autocomplete ? `autocomplete="${autocomplete}"` : "",
    value === undefined ? "" : `value="${escapeHtml(value)}"`,
    inputmode ? `inputmode="${inputmode}"` : "",
    type === "hidden" ? "" : "required",
  ].filter(Boolean);
  if (type === "hidden") return `<input ${attributes.join(" ")}>`;
  return `<div class="field"><label for="${name}">${escapeHtml(label)}</label><input ${attributes.join(" ")}>${hint ? `<p class="muted">${escapeHtml(hint)}</p>` : ""}</div>`;
}

/**
 * The sign-in pages (sign in, code, set-up with the key, forgot, reset, invitation): plain
 * HTML forms, so they work before the dashboard's script loads, and with none at all.
 * Every URL is relative: these pages sit directly under the mount.
 */
export function formPage(request: Request, page: FormPage): Response {
  const paragraphs = (page.intro ?? []).map((line) => `<p class="muted">${escapeHtml(line)}</p>`);
  const body = [
    '<main class="narrow"><section class="card sign-in">',
    `<h1>${escapeHtml(page.title)}</h1>`,
    ...paragraphs,
    page.notice ? `<p class="notice" role="status">${escapeHtml(page.notice)}</p>` : "",
    page.error ? `<p class="error" role="alert">${escapeHtml(page.error)}</p>` : "",
    page.fields
      ? `<form method="post" class="stack">${page.fields.map(field).join("")}<button type="submit">${escapeHtml(page.button ?? "Continue")}</button></form>`
      : "",
    ...(page.links ?? []).map(([href, text]) => `<p><a href="${escapeHtml(href)}">${escapeHtml(text)}</a></p>`),
    "</section></main>",
  ].join("\n");
  const html = htmlDocument({
    title: `${page.title} · Tally`,
    head: [...PAGE_HEAD, `<link rel="stylesheet" href="./${assetPath("dashboard.css")}">`],
    body,
  });
  return new Response(request.method === "HEAD" ? null : html, {
    status: page.status ?? 200,
    headers: { ...htmlPageHeaders(CONTENT_SECURITY_POLICY), "cross-origin-opener-policy": "same-origin", ...page.headers },
  });
}

/** After a form: a GET of another page (303), with cookies to set. Relative, like every URL here. */
export function seeOther(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}
