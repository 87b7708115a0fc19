import { ValidationError } from "./errors.js";

export const PER_PAGE_CHOICES = [10, 25, 50, 100] as const;

/** Raw list parameters as they arrive in a query string (or typed, in-process). */
export interface ListParamsInput {
  search?: unknown;
  search_by?: unknown;
  sort_by?: unknown;
  sort?: unknown;
  per_page?: unknown;
  page?: unknown;
}

export interface ListParams<SortBy extends string, SearchBy extends string> {
  search: string;
  searchBy: SearchBy;
  sortBy: SortBy;
  sort: "asc" | "desc";
  perPage: number;
  page: number;
}

type Errors = Record<string, string[]>;

function choice<T extends string>(errors: Errors, field: string, value: unknown, allowed: readonly T[], fallback: T): T {
  if (value === undefined || value === null || value === "") return fallback;
  const found = allowed.find((option) => option === value);
  if (found === undefined) (errors[field] ??= []).push(`The selected ${field.replace(/_/g, " ")} is invalid.`);
  return found ?? fallback;
}

/**
 * Validates search/sort/paging parameters shared by every list endpoint and collects
 * every problem into `errors` (the caller throws once, with its own fields too).
 */
export function readListParams<SortBy extends string, SearchBy extends string>(
  input: ListParamsInput,
  errors: Errors,
  allowed: { sortBy: readonly SortBy[]; searchBy: readonly SearchBy[] },
): ListParams<SortBy, SearchBy> {
  const search = input.search === undefined || input.search === null ? "" : input.search;
  if (typeof search !== "string" || search.length > 255) {
    (errors.search ??= []).push("The search must be a string of at most 255 characters.");
  }
  const perPageText = input.per_page === undefined || input.per_page === "" ? "10" : String(input.per_page);
  const perPage = PER_PAGE_CHOICES.find((n) => String(n) === perPageText);
  if (perPage === undefined) (errors.per_page ??= []).push("The selected per page is invalid.");
  const pageText = input.page === undefined || input.page === "" ? "1" : String(input.page);
  const page = /^\d{1,9}$/.test(pageText) ? Number(pageText) : 0;
  if (page < 1) (errors.page ??= []).push("The page must be an integer greater than 0.");
  return {
    search: typeof search === "string" ? search : "",
    searchBy: choice(errors, "search_by", input.search_by, allowed.searchBy, allowed.searchBy[0]!),
    sortBy: choice(errors, "sort_by", input.sort_by, allowed.sortBy, allowed.sortBy[0]!),
    sort: choice(errors, "sort", input.sort, ["desc", "asc"] as const, "desc"),
    perPage: perPage ?? 10,
    page: Math.max(page, 1),
  };
}

export function throwIfInvalid(errors: Errors): void {
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}
