import * as z from "zod";
import { ValidationError } from "./errors.js";

/** Runs a zod schema and turns its issues into a ValidationError: one list of messages per field. */
export function validate<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const errors: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "body";
    (errors[field] ??= []).push(issue.message);
  }
  throw new ValidationError(errors);
}

const label = (field: string) => field.replace(/_/g, " ");
/** In-process callers may pass numbers where a query string has text. */
const asText = (value: unknown) => (typeof value === "number" ? String(value) : value);

/** One of a fixed set of values, with the API's message for anything else. */
export const choice = <const T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.preprocess(
    asText,
    z.enum(values, {
      error: (issue) => (issue.input === undefined ? `The ${label(field)} field is required.` : `The selected ${label(field)} is invalid.`),
    }),
  );

/**
 * One of a fixed set of values where anything else means the default, as other services
 * with this API's shape do for `search_by`, `sort_by`, `sort` and `per_page`: their clients
 * send values they do not list. The server tells the caller what was used (`meta.fallbacks`, `Warning`).
 */
export const fallbackChoice = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number]) =>
  z
    .preprocess((value) => {
      const text = asText(value);
      return values.includes(text as string) ? text : fallback;
    }, z.enum(values))
    .default(fallback);

const PAGE_MESSAGE = "The page must be an integer greater than 0.";

/** `per_page` and `page`, shared by every list endpoint. */
export const paginationQuery = {
  per_page: fallbackChoice(["10", "25", "50", "100"], "10")
    .transform(Number)
    .meta({ description: "Rows per page; any other value means 10.", default: "10" }),
  page: z
    .preprocess(
      asText,
      z
        .string({ error: PAGE_MESSAGE })
        .regex(/^\+?\d+$/, PAGE_MESSAGE)
        .transform(Number)
        .refine((page) => Number.isSafeInteger(page) && page > 0, PAGE_MESSAGE)
        .default(1),
    )
    .meta({ description: "Page number, from 1.", default: "1" }),
};

/** Sort direction, shared by every list endpoint. */
export const sortDirection = fallbackChoice(["desc", "asc"], "desc").meta({
  description: "Any other value means `desc`.",
  default: "desc",
});
