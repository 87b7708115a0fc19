import * as z from "zod";

const label = (field: string) => field.replace(/_/g, " ");
const choice = <const T extends readonly [string, ...string[]]>(field: string, values: T) =>
  z.enum(values, { error: `The selected ${label(field)} is invalid.` });

const PAGE_MESSAGE = "The page must be an integer greater than 0.";

/** `per_page` and `page`, shared by every list endpoint. */
export const paginationQuery = {
  per_page: choice("per_page", ["10", "25", "50", "100"]).default("10").transform(Number),
  page: z
    .string({ error: PAGE_MESSAGE })
    .regex(/^\+?\d+$/, PAGE_MESSAGE)
    .transform(Number)
    .refine((page) => Number.isSafeInteger(page) && page > 0, PAGE_MESSAGE)
    .default(1),
};

export const websiteListQuery = z.object({
  search: z.string().optional(),
  search_by: choice("search_by", ["domain"]).default("domain"),
  sort_by: choice("sort_by", ["id", "domain"]).default("id"),
  sort: choice("sort", ["desc", "asc"]).default("desc"),
  ...paginationQuery,
});

export type WebsiteListQuery = z.infer<typeof websiteListQuery>;
