import { escapeHtml, htmlDocument } from "@tally-analytics/core/internal";
import { htmlPageHeaders, PAGE_HEAD } from "../http/html.js";
import { assetPath } from "../dashboard/assets.js";
import { languageCookie, languageLinks, languageOf, translator } from "./sign-in-text.js";

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
  /** Instead of one button: one per choice, each sending `name` with its value ([value, text]). */
  choices?: { name: string; options: readonly (readonly [string, string])[] };
  /** Links under the form: [href relative to the page, text]. */
  links?: readonly (readonly [string, string])[];
  status?: number;
  headers?: Record<string, string>;
}

function field({ name, label, type, autocomplete, value, hint, inputmode }: FormField, say: (text: string) => string): string {
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
  return `<div class="field"><label for="${name}">${escapeHtml(say(label))}</label><input ${attributes.join(" ")}>${hint ? `<p class="muted">${escapeHtml(say(hint))}</p>` : ""}</div>`;
}

/** One button, or one per choice (an account's name, not translated). */
function buttons({ button, choices }: FormPage, say: (text: string) => string): string {
  if (!choices) return `<button type="submit">${escapeHtml(say(button ?? "Continue"))}</button>`;
  return choices.options
    .map(([value, text]) => `<button type="submit" name="${choices.name}" value="${escapeHtml(value)}">${escapeHtml(text)}</button>`)
    .join("");
}

/**
 * The sign-in pages (sign in, code, set-up with the key, forgot, reset, invitation): plain
 * HTML forms, so they work before the dashboard's script loads, and with none at all.
 * Every URL is relative: these pages sit directly under the mount.
 */
export function formPage(request: Request, page: FormPage): Response {
  // In the reader's language (sign-in-text.ts): every text below goes through `say`.
  const { language, chosen } = languageOf(request);
  const say = translator(language);
  const paragraphs = (page.intro ?? []).map((line) => `<p class="muted">${escapeHtml(say(line))}</p>`);
  const languages = languageLinks(request, language)
    .map(([href, name, code]) => `<a href="${escapeHtml(href)}" lang="${code}" hreflang="${code}">${escapeHtml(name)}</a>`)
    .join(" · ");
  const body = [
    '<main class="narrow"><section class="card sign-in">',
    `<div class="sign-in-head"><h1>${escapeHtml(say(page.title))}</h1><nav class="languages" aria-label="${escapeHtml(say("Language"))}">${languages}</nav></div>`,
    ...paragraphs,
    page.notice ? `<p class="notice" role="status">${escapeHtml(say(page.notice))}</p>` : "",
    page.error ? `<p class="error" role="alert">${escapeHtml(say(page.error))}</p>` : "",
    page.fields
      ? `<form method="post" class="stack">${page.fields.map((each) => field(each, say)).join("")}${buttons(page, say)}</form>`
      : "",
    ...(page.links ?? []).map(([href, text]) => `<p><a href="${escapeHtml(href)}">${escapeHtml(say(text))}</a></p>`),
    "</section></main>",
  ].join("\n");
  const html = htmlDocument({
    title: `${say(page.title)} · Tally`,
    lang: language,
    head: [...PAGE_HEAD, `<link rel="stylesheet" href="./${assetPath("dashboard.css")}">`],
    body,
  });
  const headers = new Headers({
    ...htmlPageHeaders(CONTENT_SECURITY_POLICY),
    "cross-origin-opener-policy": "same-origin",
    ...page.headers,
  });
  if (chosen) headers.append("set-cookie", languageCookie(language));
  return new Response(request.method === "HEAD" ? null : html, { status: page.status ?? 200, headers });
}

/** After a form: a GET of another page (303), with cookies to set. Relative, like every URL here. */
export function seeOther(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}
