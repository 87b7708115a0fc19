import type { Fallbacks } from "./fallbacks.js";

/** One page of a list, as core returns it. */
export interface PageOf<T> {
  data: T[];
  total: number;
  page: number;
  perPage: number;
}

/**
 * The list envelope: absolute links built from the public request URL (other query
 * parameters kept, only `page` changed) and Laravel-style meta, whose figures also stand
 * at the top level (where existing clients of APIs of this shape read them). `fallbacks`: the list
 * parameters whose unknown values were replaced by their defaults.
 */
export function paginated<T>(url: URL, { data, total, page, perPage }: PageOf<T>, fallbacks: Fallbacks = {}) {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const link = (target: number) => {
    const next = new URL(url);
    next.searchParams.set("page", String(target));
    return next.href;
  };
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  const to = from === null ? null : from + data.length - 1;
  return {
    data,
    current_page: page,
    last_page: lastPage,
    per_page: perPage,
    total,
    from,
    to,
    links: {
      first: link(1),
      last: link(lastPage),
      prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
      next: page < lastPage ? link(page + 1) : null,
    },
    meta: {
      current_page: page,
      from,
      last_page: lastPage,
      path: `${url.origin}${url.pathname}`,
      per_page: perPage,
      to,
      total,
      ...(Object.keys(fallbacks).length === 0 ? {} : { fallbacks }),
    },
  };
}
