
/** Query parameters as one object; a repeated parameter takes its last value, an empty one is absent. */
export function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) {
    if (value === "") delete query[key];
    else query[key] = value;
  }
  return query;
}
