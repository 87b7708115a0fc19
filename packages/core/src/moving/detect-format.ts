import { TallyError } from "../shared/errors.js";
import { openGoatCounter } from "./goatcounter.js";
import type { ImportFormat, OpenReader } from "./import-items.js";
import type { ImportInput, InputEntry } from "./input-files.js";
import { openPlausible, plausibleTable } from "./plausible.js";
import { openTallyCsv } from "./tally-csv.js";
import { openUmami } from "./umami.js";

export const READERS: Readonly<Record<ImportFormat, OpenReader>> = {
  plausible: openPlausible,
  goatcounter: openGoatCounter,
  umami: openUmami,
  tally: openTallyCsv,
};

/** The first line of a file (decompressed, without a BOM). */
async function firstLine(entry: InputEntry): Promise<string> {
  const stream = await entry.open({ bytes: 0 });
  let text = "";
  for await (const chunk of stream) {
    text += (chunk as Buffer).toString("utf8");
    if (text.includes("\n") || text.length > 65_536) break;
  }
  stream.destroy();
  return text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
}

const UNKNOWN =
  "expected a Plausible export (a .zip of imported_*.csv files), a GoatCounter CSV export (version 2, .csv.gz), " +
  "Umami's website_event.csv (with session.csv and event_data.csv beside it, or all three in a .zip) or a Tally export (.zip)";

/** Which format an input is, from its files' names or its header row. */
export async function detectFormat(input: ImportInput): Promise<ImportFormat> {
  const names = input.entries.map((entry) => entry.name);
  if (names.some((name) => plausibleTable(name) !== null)) return "plausible";
  if (names.includes("website_event.csv")) return "umami";
  if (names.includes("pageviews.csv") && names.includes("visits.csv")) return "tally";
  const only = input.entries.length === 1 ? input.entries[0] : undefined;
  if (only) {
    const header = await firstLine(only);
    const version = /^"?(\d+),?Path"?,/.exec(header)?.[1];
    if (version === "2") return "goatcounter";
    if (version !== undefined)
      throw new TallyError(
        `${input.path}: a GoatCounter CSV export of version ${version}; only version 2 can be read (export it again from GoatCounter)`,
      );
    const columns = header.split(",").map((column) => column.replace(/"/g, "").trim());
    if (columns.includes("url_path") && columns.includes("event_type")) return "umami";
  }
  throw new TallyError(`${input.path}: cannot tell its format; ${UNKNOWN}`);
}
