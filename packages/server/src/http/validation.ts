/** Parameters that may be repeated, each occurrence one more value (`filter=…&filter=…`). */
const LISTS: ReadonlySet<string> = new Set(["filter", "goal_page"]);

/**
 * Query parameters as one object: a repeated parameter takes its last value (lists
 * collect every one), an empty one is absent.
 */
export function queryObject(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of url.searchParams) {
    if (LISTS.has(key)) {
      if (value !== "") query[key] = [...((query[key] as string[] | undefined) ?? []), value];
    } else if (value === "") delete query[key];
    else query[key] = value;
  }
  return query;
}
