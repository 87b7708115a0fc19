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

const PAGE_MESSAGE = "The page must be an integer greater than 0.";

/** `per_page` and `page`, shared by every list endpoint. */
export const paginationQuery = {
  per_page: choice("per_page", ["10", "25", "50", "100"])
    .default("10")
    .transform(Number)
    .meta({ description: "Rows per page.", default: "10" }),
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
export const sortDirection = choice("sort", ["desc", "asc"]).default("desc").meta({ default: "desc" });
