const numbers = new Intl.NumberFormat("en");

export const formatNumber = (value: number): string => numbers.format(value);

/** `42s`, `3m 05s`, `1h 02m`. */
export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, "0");
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

export const formatPercent = (value: number): string => `${numbers.format(value)}%`;

export interface ValueLabel {
  /** A country code shown as a small badge (emoji flags are missing on many desktops). */
  code?: string;
  text: string;
}

/** How a row's value reads in a card: `US:United States` → [US] United States, `US:Austin` → [US] Austin. */
export function valueLabel(name: string, value: string): ValueLabel {
  const colon = value.indexOf(":");
  if (colon < 0 || !["country", "continent", "city"].includes(name)) return { text: value };
  const text = value.slice(colon + 1);
  return name === "continent" ? { text } : { code: value.slice(0, colon), text };
}
