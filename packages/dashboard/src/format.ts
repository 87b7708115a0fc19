const numbers = new Intl.NumberFormat("en");

export const formatNumber = (value: number): string => numbers.format(value);

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
