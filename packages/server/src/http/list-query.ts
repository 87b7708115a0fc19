import { fallbackChoice, paginationQuery, sortDirection } from "@tally-analytics/core/internal";
import * as z from "zod";

export const websiteListQuery = z.object({
  search: z.string().optional(),
  search_by: fallbackChoice(["domain"], "domain").meta({ description: "Any other value means `domain`.", default: "domain" }),
  sort_by: fallbackChoice(["id", "domain"], "id").meta({ description: "Any other value means `id`.", default: "id" }),
  sort: sortDirection,
  ...paginationQuery,
});

export type WebsiteListQuery = z.infer<typeof websiteListQuery>;
