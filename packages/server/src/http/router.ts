/** Anything with a method and a path pattern like `/api/v1/websites/{id}`. */
export interface Routable {
  method: string;
  path: string;
}

export type RouteMatch<R> =
  { kind: "found"; route: R; params: Record<string, string> } | { kind: "method"; allow: string[] } | { kind: "none" };

interface Compiled<R> {
  route: R;
  pattern: RegExp;
  names: string[];
}

/** A malformed escape is left as typed: the route then decides it names nothing (404), never a 500. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function compile<R extends Routable>(route: R): Compiled<R> {
  const names: string[] = [];
  const source = route.path
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^$()|[\]\\]/g, "\\$&");
      names.push(name);
      return "([^/]+)";
    })
    .join("");
  return { route, pattern: new RegExp(`^${source}$`), names };
}

/** Matches a routed path against a table; a path known under other methods answers which ones. */
export function createRouter<R extends Routable>(routes: readonly R[]) {
  const compiled = routes.map(compile);
  return (method: string, path: string): RouteMatch<R> => {
    const allow = new Set<string>();
    for (const { route, pattern, names } of compiled) {
      const match = pattern.exec(path);
      if (!match) continue;
      // HEAD is answered by every GET route (the adapters send no body for it).
      if (route.method === method || (method === "HEAD" && route.method === "GET")) {
        const params = Object.fromEntries(names.map((name, index) => [name, decodeSegment(match[index + 1] ?? "")]));
        return { kind: "found", route, params };
      }
      allow.add(route.method);
      if (route.method === "GET") allow.add("HEAD");
    }
    return allow.size > 0 ? { kind: "method", allow: [...allow] } : { kind: "none" };
  };
}
