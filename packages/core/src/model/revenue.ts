import * as z from "zod";
import { ValidationError } from "../shared/errors.js";

/** An event's revenue as a caller sends it: an amount (a number or its decimal text) and an ISO 4217 currency. */
export interface RevenueInput {
  amount: number | string;
  currency: string;
}

/** A hit body's revenue field (checked further by checkRevenue). */
export const revenueBody = z
  .object({ amount: z.union([z.number(), z.string()]), currency: z.string() })
  .nullish()
  .meta({
    description: "An event's revenue: its amount and ISO 4217 currency (docs/revenue.md).",
    example: { amount: 29.9, currency: "EUR" },
  });

/** An event's revenue as stored: the amount in ten-thousandths of the currency's unit (sums stay exact), and the currency. */
export interface Revenue {
  amount: number;
  currency: string;
}

/** Amounts are kept to four decimal places: every ISO 4217 currency has at most three. */
export const REVENUE_SCALE = 10_000;
/** Largest amount one event may carry (a thousand billion units): sums of many stay exact in a double. */
const MAX_AMOUNT = 1e12;
const DECIMAL = /^-?\d{1,13}(?:\.\d{1,4})?$/;

/** ISO 4217 codes, as the runtime's ICU knows them: the one list of currencies. */
let currencies: Set<string> | undefined;
export const isCurrency = (code: string): boolean => (currencies ??= new Set(Intl.supportedValuesOf("currency"))).has(code);

const invalid = (message: string) => ValidationError.field("revenue", message);

/** A revenue checked: null when none was sent; only an event carries one. */
export function checkRevenue(input: unknown, event: string | null): Revenue | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "object" || Array.isArray(input)) throw invalid("The revenue must be an object: {amount, currency}.");
  if (event === null) throw invalid("Only an event carries revenue, not a pageview.");
  const { amount, currency } = input as Record<string, unknown>;
  const code = typeof currency === "string" ? currency.toUpperCase() : "";
  if (!isCurrency(code)) throw invalid("The revenue's currency must be an ISO 4217 code (USD, EUR…).");
  const text = typeof amount === "number" && Number.isFinite(amount) ? String(Math.round(amount * REVENUE_SCALE) / REVENUE_SCALE) : amount;
  if (typeof text !== "string" || !DECIMAL.test(text.trim()))
    throw invalid("The revenue's amount must be a number with at most four decimals.");
  const scaled = Math.round(Number(text.trim()) * REVENUE_SCALE);
  if (Math.abs(scaled) > MAX_AMOUNT * REVENUE_SCALE) throw invalid(`The revenue's amount must be within ±${MAX_AMOUNT}.`);
  return { amount: scaled, currency: code };
}
