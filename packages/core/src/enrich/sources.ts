import { readFileSync } from "node:fs";

/**
 * Named sources (docs/statistics.md, "Source"): `lists/sources.json`, refreshed from a
 * maintained list by scripts/refresh-sources.mjs, maps a name to its category and hosts.
 */
export type SourceCategory = "search" | "social" | "email" | "video" | "shopping" | "ai" | "";

interface SourceList {
  /** Host (without `www.`) → name. */
  byHost: Map<string, string>;
  /** Lowercased name → name and category. */
  byName: Map<string, { name: string; category: SourceCategory }>;
}

let loaded: SourceList | null = null;

function sourceList(): SourceList {
  if (loaded) return loaded;
  const file = new URL("../../lists/sources.json", import.meta.url);
  const entries = JSON.parse(readFileSync(file, "utf8")) as Record<string, [SourceCategory, ...string[]]>;
  loaded = { byHost: new Map(), byName: new Map() };
  for (const [name, [category, ...hosts]] of Object.entries(entries)) {
    loaded.byName.set(name.toLowerCase(), { name, category });
    for (const host of hosts) loaded.byHost.set(host, name);
  }
  return loaded;
}

/** The name of a referring host (`www.` stripped), or of the nearest parent domain that has one. */
function nameOfHost(host: string): string | undefined {
  const { byHost } = sourceList();
  for (let domain = host; domain.includes("."); domain = domain.slice(domain.indexOf(".") + 1)) {
    const name = byHost.get(domain);
    if (name !== undefined) return name;
  }
  return undefined;
}

/**
 * A visit's source: the referring host's name (the host itself when it has none), else
 * its `utm_source` (a known name in the list's spelling: `google` → `Google`), else "".
 */
export function sourceOf(referrerHost: string, utmSource: string): string {
  if (referrerHost !== "") return nameOfHost(referrerHost) ?? referrerHost;
  if (utmSource === "") return "";
  return sourceList().byName.get(utmSource.toLowerCase())?.name ?? utmSource;
}

/** The category of a source's name ("" for a host without a name or a name without one). */
export const categoryOf = (source: string): SourceCategory => sourceList().byName.get(source.toLowerCase())?.category ?? "";
