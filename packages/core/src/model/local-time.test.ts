import { describe, expect, it } from "vitest";
import { createLocalClock } from "./local-time.js";

/** The same answer from Intl alone, with nothing remembered. */
function expected(timeZone: string, epochMs: number) {
  const parts: Record<string, string> = {};
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  for (const part of format.formatToParts(epochMs)) parts[part.type] = part.value;
  const wall = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!);
  return { day: `${parts.year}-${parts.month}-${parts.day}`, hour: parts.hour!, seconds: Math.floor(wall / 1000) };
}

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "Pacific/Chatham"];

describe("local clock", () => {
  it("agrees with Intl in time order across midnights and DST changes, and out of order", () => {
    const clock = createLocalClock();
    // Every 7 minutes 13 seconds through March and April 2026 (spring DST in both hemispheres' zones).
    const inOrder: number[] = [];
    for (let t = Date.UTC(2026, 2, 1); t < Date.UTC(2026, 3, 15); t += 433_000) inOrder.push(t);
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const shuffled = Array.from({ length: 2000 }, () => Date.UTC(2026, 0, 1) + Math.floor(random() * 365 * 86_400_000));
    for (const timeZone of ZONES)
      for (const epochMs of [...inOrder, ...shuffled])
        expect(clock(timeZone, epochMs), `${timeZone} ${epochMs}`).toEqual(expected(timeZone, epochMs));
  });
});
