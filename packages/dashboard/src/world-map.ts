// A world map of visitors by country: the countries' shapes (assets/world.json, projected at
// build time, fetched once when a map is first drawn) shaded by their share of the most
// visited country's visitors; each country's name and visitors on hover and for screen readers.
import { h, svg } from "./dom.js";
import { formatNumber } from "./format.js";
import { valueLabel } from "./format.js";
import { t } from "./i18n.js";

/** Set by the build: the map file's path, relative to the mount (`assets/world.json?v=…`). */
declare const WORLD_FILE: string;

interface World {
  width: number;
  height: number;
  countries: Record<string, string>;
}

let world: Promise<World> | null = null;
/** Fetched from the mount (the page's `data-base`), once. */
const loadWorld = () =>
  (world ??= fetch(new URL(WORLD_FILE, new URL(document.body.dataset.base ?? "./", location.href))).then((response) => {
    if (!response.ok) throw new Error(`${response.status}`);
    return response.json() as Promise<World>;
  }));

/** Shades of the accent colour: five steps of visitors (the stylesheet colours `.level-N`). */
const LEVELS = 5;

/** A map of `rows` (`US:United States` → visitors). */
export async function worldMap(rows: readonly { value: string; visitors: number }[], label: string): Promise<HTMLElement> {
  const { width, height, countries } = await loadWorld();
  const byCode = new Map(rows.map((row) => [row.value.split(":")[0] ?? "", row]));
  const top = Math.max(1, ...rows.map((row) => row.visitors));
  const shapes = Object.entries(countries).map(([code, d]) => {
    const row = byCode.get(code);
    const level = row ? Math.max(1, Math.ceil((row.visitors / top) * LEVELS)) : 0;
    const name = row ? valueLabel("country", row.value).text : valueLabel("country", `${code}:${code}`).text;
    return svg(
      "path",
      { d, class: `country level-${level}`, "data-country": code, "data-visitors": row?.visitors ?? 0 },
      svg("title", {}, row ? `${name}: ${formatNumber(row.visitors)}` : name),
    );
  });
  return h(
    "figure",
    { class: "world-map" },
    svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": label }, ...shapes),
    // The same figures as a list, for screen readers.
    h(
      "ul",
      { class: "visually-hidden" },
      ...rows.map((row) => h("li", {}, `${valueLabel("country", row.value).text}: ${formatNumber(row.visitors)} ${t("unit.visitors")}`)),
    ),
  );
}
