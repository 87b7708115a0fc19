// The live view's and the Locations card's world map, drawn at build time: Natural Earth's
// 1:110m countries (world-atlas) projected with Equal Earth (d3-geo) into SVG path data, one
// per country by its ISO 3166-1 alpha-2 code. The browser fetches this file (assets/world.json)
// when it first draws a map: no tiles, no other server, nothing in the dashboard's first load.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { geoEqualEarth, geoPath } from "d3-geo";
import { iso31661NumericToAlpha2 } from "iso-3166";
import { feature } from "topojson-client";

export const WORLD_SIZE = { width: 960, height: 470 };

/** `{ width, height, countries: { DE: "M…Z", … } }`, coordinates rounded to whole units. */
export function worldMap() {
  const require = createRequire(import.meta.url);
  const topology = JSON.parse(readFileSync(require.resolve("world-atlas/countries-110m.json"), "utf8"));
  const countries = feature(topology, topology.objects.countries).features;
  const projection = geoEqualEarth().fitExtent(
    [
      [2, 2],
      [WORLD_SIZE.width - 2, WORLD_SIZE.height - 2],
    ],
    { type: "FeatureCollection", features: countries },
  );
  const path = geoPath(projection);
  path.digits?.(0);
  const shapes = {};
  for (const country of countries) {
    // Northern Cyprus, Kosovo, Somaliland have no numeric code; Kosovo is XK in GeoIP databases.
    const code = iso31661NumericToAlpha2[country.id] ?? (country.properties.name === "Kosovo" ? "XK" : null);
    const d = path(country);
    if (!code || !d) continue;
    shapes[code] = (shapes[code] ?? "") + d;
  }
  return { ...WORLD_SIZE, countries: shapes };
}
