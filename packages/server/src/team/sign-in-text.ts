// The sign-in pages in the reader's language: the texts come from the dashboard's build
// (assets/sign-in-messages.json, one table per language), the language from `?lang=` (which
// the page's language links set, and a cookie then keeps), the `tally_lang` cookie the
// dashboard's own language menu sets, or the browser's Accept-Language; else English.
// The pages are written in English: each sentence is looked up in the English table (a
// `{name}` in it stands for any text) and given in the reader's language.
import { dashboardAssets } from "@tally-analytics/dashboard";

type Tables = Readonly<Record<string, Readonly<Record<string, string>>>>;

export const LANGUAGE_COOKIE = "tally_lang";
/** Each language in its own words, for the language links. */
const LANGUAGE_NAMES: Readonly<Record<string, string>> = { en: "English", de: "Deutsch", fr: "Français", es: "Español" };

let loaded: { tables: Tables; exact: Map<string, string>; templates: { key: string; pattern: RegExp; names: string[] }[] } | null = null;

function texts() {
  if (loaded) return loaded;
  const tables = JSON.parse(dashboardAssets["sign-in-messages.json"].body) as Tables;
  const english = tables.en ?? {};
  const exact = new Map<string, string>();
  const templates: { key: string; pattern: RegExp; names: string[] }[] = [];
  for (const [key, text] of Object.entries(english)) {
    if (!text.includes("{")) exact.set(text, key);
    else {
      const names = [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
      const source = text.split(/\{\w+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
      templates.push({ key, names, pattern: new RegExp(`^${source.join("(.+?)")}$`) });
    }
  }
  return (loaded = { tables, exact, templates });
}

export const LANGUAGES = (): string[] => Object.keys(texts().tables);

function cookie(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=");
  }
  return null;
}

/** The language asked by `?lang=`, else the cookie's, else the first of Accept-Language Tally speaks, else English. */
export function languageOf(request: Request): { language: string; chosen: boolean } {
  const known = LANGUAGES();
  const asked = new URL(request.url).searchParams.get("lang");
  if (asked && known.includes(asked)) return { language: asked, chosen: true };
  const kept = cookie(request, LANGUAGE_COOKIE);
  if (kept && known.includes(kept)) return { language: kept, chosen: false };
  for (const range of (request.headers.get("accept-language") ?? "").split(",")) {
    const primary = range.trim().split(";")[0]!.split("-")[0]!.toLowerCase();
    if (known.includes(primary)) return { language: primary, chosen: false };
  }
  return { language: "en", chosen: false };
}

/** A sentence of the pages in `language` (unknown ones as they are). */
export function translator(language: string): (english: string) => string {
  const { tables, exact, templates } = texts();
  const table = tables[language] ?? {};
  const say = (english: string): string => {
    const key = exact.get(english);
    if (key) return table[key] ?? english;
    for (const template of templates) {
      const match = template.pattern.exec(english);
      if (!match) continue;
      const values = new Map(template.names.map((name, index) => [name, say(match[index + 1]!)]));
      return (table[template.key] ?? english).replace(/\{(\w+)\}/g, (whole, name: string) => values.get(name) ?? whole);
    }
    return english;
  };
  return say;
}

/** The language links of a page: this page in each other language (its other parameters, a link's token, kept). */
export function languageLinks(request: Request, current: string): [string, string, string][] {
  const url = new URL(request.url);
  return LANGUAGES()
    .filter((language) => language !== current)
    .map((language) => {
      url.searchParams.set("lang", language);
      return [`?${url.searchParams.toString()}`, LANGUAGE_NAMES[language] ?? language, language];
    });
}

/** Keeps a chosen language for the sign-in pages and the dashboard (a year; not a secret: readable by the dashboard's script). */
export const languageCookie = (language: string): string => `${LANGUAGE_COOKIE}=${language}; Path=/; Max-Age=31536000; SameSite=Lax`;
