import { locale } from "./i18n.js";

let numbers: { locale: string; format: Intl.NumberFormat } | null = null;

/** Numbers as the dashboard's language writes them (`1,234`, `1.234`, `1 234`). */
export function formatNumber(value: number): string {
  if (numbers?.locale !== locale()) numbers = { locale: locale(), format: new Intl.NumberFormat(locale()) };
  return numbers.format.format(value);
}

/** `42s`, `3m 05s`, `1h 02m`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

export const formatPercent = (value: number): string => `${formatNumber(value)}%`;

/** Two decimals, as the language writes them (`1.78`, `1,78`). */
export const formatDecimal = (value: number): string =>
  new Intl.NumberFormat(locale(), { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(value);

export interface ValueLabel {
  /** A country code shown as a small badge (emoji flags are missing on many desktops). */
  code?: string;
  text: string;
}

/** How a row's value reads in a card: `US:United States` → [US] United States, `US:Austin` → [US] Austin, `US-TX:Texas` → [US-TX] Texas. */
export function valueLabel(name: string, value: string): ValueLabel {
  const colon = value.indexOf(":");
  if (colon < 0 || !["country", "continent", "region", "city"].includes(name)) return { text: value };
  const text = value.slice(colon + 1);
  return name === "continent" ? { text } : { code: value.slice(0, colon), text };
}
