import { describe, expect, it } from "vitest";
import { timeZoneName } from "./website-input.js";

describe("time zone names", () => {
  it("stores UTC as ICU spells it, however it was typed", () => {
    for (const typed of ["UTC", "utc", " Utc "]) {
      expect(timeZoneName(typed), typed).toBe("UTC");
      expect(new Intl.DateTimeFormat("en", { timeZone: typed.trim() }).resolvedOptions().timeZone).toBe("UTC");
    }
    // Its other names are kept as typed, as every valid name is.
    expect(timeZoneName("Etc/UTC")).toBe("Etc/UTC");
  });

  it("keeps other zones in their proper spelling and refuses what is no zone", () => {
    expect(timeZoneName("europe/berlin")).toBe("Europe/Berlin");
    expect(timeZoneName("asia/kolkata")).toBe("Asia/Kolkata");
    expect(timeZoneName("Mars/Olympus_Mons")).toBeNull();
    expect(timeZoneName("UTC+1")).toBeNull();
    expect(timeZoneName("")).toBeNull();
  });
});
