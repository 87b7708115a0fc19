import { choice, paginationQuery, sortDirection } from "@tally-analytics/core/internal";
import * as z from "zod";

export const websiteListQuery = z.object({
  search: z.string().optional(),
  search_by: choice("search_by", ["domain"]).default("domain"),
  sort_by: choice("sort_by", ["id", "domain"]).default("id"),
  sort: sortDirection,
  ...paginationQuery,
});

export type WebsiteListQuery = z.infer<typeof websiteListQuery>;
