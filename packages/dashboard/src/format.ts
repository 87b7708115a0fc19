import { locale, t } from "./i18n.js";
import type { MessageKey } from "./messages.js";

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

let names: { locale: string; regions: Intl.DisplayNames; languages: Intl.DisplayNames } | null = null;

/** Country and language names in the dashboard's language (the browser's own tables: nothing to download). */
function displayNames(): NonNullable<typeof names> {
  if (names?.locale !== locale())
    names = {
      locale: locale(),
      regions: new Intl.DisplayNames([locale()], { type: "region", fallback: "none" }),
      languages: new Intl.DisplayNames([locale()], { type: "language", fallback: "none" }),
    };
  return names;
}

/** A name the browser knows for a code, else what is stored. */
function known(of: Intl.DisplayNames, code: string, stored: string): string {
  try {
    return of.of(code) ?? stored;
  } catch {
    return stored;
  }
}

/** Channels and device types as the dashboard's language says them (the API's values are English words). */
const CHANNELS: Readonly<Record<string, MessageKey>> = {
  "AI Assistants": "channel.ai",
  Affiliates: "channel.affiliates",
  Audio: "channel.audio",
  "Cross-network": "channel.crossNetwork",
  Direct: "channel.direct",
  Display: "channel.display",
  Email: "channel.email",
  "Mobile Push Notifications": "channel.push",
  "Organic Search": "channel.organicSearch",
  "Organic Shopping": "channel.organicShopping",
  "Organic Social": "channel.organicSocial",
  "Organic Video": "channel.organicVideo",
  "Paid Other": "channel.paidOther",
  "Paid Search": "channel.paidSearch",
  "Paid Shopping": "channel.paidShopping",
  "Paid Social": "channel.paidSocial",
  "Paid Video": "channel.paidVideo",
  Referral: "channel.referral",
  SMS: "channel.sms",
};
const DEVICES: Readonly<Record<string, MessageKey>> = {
  desktop: "device.desktop",
  mobile: "device.mobile",
  tablet: "device.tablet",
  smarttv: "device.smarttv",
  console: "device.console",
  wearable: "device.wearable",
  embedded: "device.embedded",
  xr: "device.xr",
};
const CONTINENTS: Readonly<Record<string, MessageKey>> = {
  AF: "continent.AF",
  AN: "continent.AN",
  AS: "continent.AS",
  EU: "continent.EU",
  NA: "continent.NA",
  OC: "continent.OC",
  SA: "continent.SA",
};

/**
 * How a row's value reads in a card, in the dashboard's language: `US:United States` →
 * [US] Vereinigte Staaten, `US:Austin` → [US] Austin, `US-TX:Texas` → [US-TX] Texas,
 * `de` → German, `Organic Search` → Organische Suche, `mobile` → Mobile.
 */
export function valueLabel(name: string, value: string): ValueLabel {
  if (name === "channel" && CHANNELS[value]) return { text: t(CHANNELS[value]) };
  if (name === "device") return { text: DEVICES[value] ? t(DEVICES[value]) : value.charAt(0).toUpperCase() + value.slice(1) };
  if (name === "language")
    return { text: /^[a-z]{2,3}(-[A-Za-z0-9]+)?$/.test(value) ? known(displayNames().languages, value, value) : value };
  const colon = value.indexOf(":");
  if (colon < 0 || !["country", "continent", "region", "city"].includes(name)) return { text: value };
  const code = value.slice(0, colon);
  const stored = value.slice(colon + 1);
  if (name === "continent") return { text: CONTINENTS[code] ? t(CONTINENTS[code]) : stored };
  if (name === "country") return { code, text: known(displayNames().regions, code, stored) };
  return { code, text: stored };
}
