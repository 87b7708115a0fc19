import { isInDomain } from "../shared/calendar.js";
import { openCsv, type CsvRecord } from "./csv-records.js";
import type { FunnelDefinition, ImportItem, OpenReader } from "./import-items.js";
import { FUNNELS_FILE, TALLY_FILES, rollupValue, type TallyFile } from "./tally-layout.js";

/** Any integer: a day's exit-page count can go below zero when a visit's exit moves to another day's row. */
function integer(record: CsvRecord, column: string): number {
  const text = record.get(column).trim();
  if (!/^-?\d{1,15}$/.test(text)) record.fail(column, `expected a whole number, got "${text.slice(0, 40)}"`);
  return Number(text);
}

function itemOf(file: TallyFile, record: CsvRecord): ImportItem {
  const day = record.get("date").trim();
  if (!isInDomain(day)) record.fail("date", `expected a date such as 2024-01-31, got "${day.slice(0, 40)}"`);
  const value = rollupValue(
    file,
    day,
    file.keys.map((key) => record.get(key)),
  );
  return {
    kind: "counts",
    day,
    counts: Object.entries(file.counts).map(([column, name]) => ({ name, value, count: integer(record, column) })),
  };
}

/** Tally's own export (`tally export --format csv`), read back exactly. */
export const openTallyCsv: OpenReader = async (input) => {
  const fileOf = (name: string) => TALLY_FILES.find((file) => file.file === name);
  return {
    format: "tally",
    kind: "counts",
    ignored: input.entries.filter((entry) => !fileOf(entry.name) && entry.name !== FUNNELS_FILE.file).map((entry) => entry.name),
    async *items(counter) {
      for (const entry of input.entries) {
        const file = fileOf(entry.name);
        if (!file) {
          counter.bytes += entry.size;
          continue;
        }
        const csv = await openCsv(entry.name, await entry.open(counter), ["date", ...file.keys, ...Object.keys(file.counts)]);
        for await (const record of csv.records()) yield itemOf(file, record);
      }
    },
    async funnels() {
      const entry = input.entries.find((candidate) => candidate.name === FUNNELS_FILE.file);
      if (!entry) return [];
      const csv = await openCsv(entry.name, await entry.open({ bytes: 0 }), FUNNELS_FILE.columns);
      const funnels: FunnelDefinition[] = [];
      for await (const record of csv.records()) funnels.push({ name: record.get("name"), steps: record.get("steps").split("\n") });
      return funnels;
    },
    close: async () => {},
  };
};
