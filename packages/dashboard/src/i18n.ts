// The dashboard's language: the one chosen in the header (kept in localStorage), else the
// first of the browser's languages Tally speaks, else English. Text comes from messages.ts.
import { en, LOCALES, type Locale, type MessageKey, type Messages } from "./messages.js";

/** Set by the build: each language but English → its asset's path, relative to the mount (`assets/messages-de.json?v=…`). */
declare const MESSAGE_FILES: Readonly<Record<string, string>>;

const STORAGE = "tally.locale";

const isLocale = (value: string | null | undefined): value is Locale => LOCALES.includes(value as Locale);

/** The cookie the sign-in pages keep a chosen language in (they are served without this script). */
const COOKIE = "tally_lang";

/** The language chosen here, else on a sign-in page. */
function stored(): string | null {
  let chosen: string | null = null;
  try {
    chosen = localStorage.getItem(STORAGE);
  } catch {
    // No storage: the cookie may say.
  }
  return chosen ?? /(?:^|;\s*)tally_lang=([a-z]+)/.exec(typeof document === "undefined" ? "" : document.cookie)?.[1] ?? null;
}

/** The chosen language, else the browser's (`de-AT` → `de`), else English. */
export function pickLocale(choice: string | null, browser: readonly string[]): Locale {
  if (isLocale(choice)) return choice;
  for (const tag of browser) {
    const primary = tag.toLowerCase().split("-")[0];
    if (isLocale(primary)) return primary;
  }
  return "en";
}

const browserLanguages = (): readonly string[] => (typeof navigator === "undefined" ? [] : (navigator.languages ?? [navigator.language]));

let current: Locale = pickLocale(stored(), browserLanguages());
let table: Messages = en;

export const locale = (): Locale => current;

/** Fetches the current language's messages (English is built in); English when that fails. */
export async function loadMessages(base: URL): Promise<void> {
  if (current === "en") return;
  try {
    const response = await fetch(new URL(MESSAGE_FILES[current] ?? "", base));
    if (!response.ok) throw new Error(`${response.status}`);
    table = (await response.json()) as Messages;
  } catch {
    current = "en";
  }
}

/** Switches the language for this browser (every tab, from the next page load). */
export function setLocale(next: Locale): void {
  current = next;
  // The sign-in pages read it too.
  document.cookie = `${COOKIE}=${next}; path=/; max-age=31536000; samesite=lax`;
  try {
    localStorage.setItem(STORAGE, next);
  } catch {
    // Private mode without storage: this page only.
  }
}

/** The text of `key` in the current language; `{name}` placeholders filled from `params`. */
export function t(key: MessageKey, params: Readonly<Record<string, string | number>> = {}): string {
  const text = table[key] ?? en[key];
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(params, name) ? String(params[name]) : whole));
}

/** Singular or plural text by count (`{n}` is the formatted count). */
export const plural = (count: number, one: MessageKey, other: MessageKey, n: string = String(count)): string =>
  t(count === 1 ? one : other, { n });
