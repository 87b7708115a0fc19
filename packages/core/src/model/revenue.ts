import { ValidationError } from "../shared/errors.js";
import type { GoalRevenue } from "./revenue-schemas.js";

/** An event's revenue as a caller sends it: an amount (a number or its decimal text) and an ISO 4217 currency. */
export interface RevenueInput {
  amount: number | string;
  currency: string;
}

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

/** Revenue of one event name in one currency over a range: the sum (ten-thousandths) and how many events carried it. */
export interface RevenueSum {
  event: string;
  currency: string;
  amount: number;
  events: number;
}

/** Ten-thousandths as the currency's unit, to four decimals. */
export const fromScaled = (scaled: number): number => Math.round(scaled) / REVENUE_SCALE;

/** A goal's revenue per currency, from its sums; `visitors`: every visitor of the range under the filters. */
export function goalRevenue(sums: readonly RevenueSum[], visitors: number): GoalRevenue[] {
  return [...sums]
    .sort((a, b) => (a.currency < b.currency ? -1 : a.currency > b.currency ? 1 : 0))
    .map(({ currency, amount, events }) => ({
      currency,
      total_revenue: fromScaled(amount),
      average_revenue: fromScaled(amount / events),
      revenue_per_visitor: visitors === 0 ? 0 : fromScaled(amount / visitors),
      events,
    }));
}
