// Typed events: a wrong event name or property is a compile error, on the server
// (`createTally<Events>()`: record, collect) and in the browser (`TallyTracker<Events>`);
// types/event-types.ts is checked by tsc, and each of its @ts-expect-error must be used.
import { createTally } from "@tally-analytics/core";
import { describe, expect, it } from "vitest";
import { typeCheck } from "../support/type-check.js";

const PROJECT = new URL("./types/tsconfig.json", import.meta.url);

type Events = { Signup: { plan: "free" | "pro" }; Purchase: { amount: number } };

describe("typed events", () => {
  it("compile what is right and refuse every wrong name or property (tsc, each @ts-expect-error used)", async () => {
    const result = await typeCheck(PROJECT);
    expect(result.output).toBe("");
    expect(result.code).toBe(0);
  }, 60_000);

  it("record counts the event with its properties", async () => {
    const tally = createTally<Events>({ database: ":memory:" });
    try {
      const { accountId } = await tally.accounts.create({ name: "shop" });
      const { id } = await tally.websites.create(accountId, { domain: "shop.example" });
      const visitor = { url: "https://shop.example/welcome", ip: "192.0.2.7", userAgent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0" };
      expect(await tally.record("Signup", { ...visitor, props: { plan: "pro" } })).toEqual({ status: "accepted" });
      expect(await tally.record("Purchase", { ...visitor, props: { amount: 42 } })).toEqual({ status: "accepted" });
      const day = new Date().toISOString().slice(0, 10);
      const events = await tally.stats.query(accountId, id, { name: "event", from: day, to: day });
      expect(events.data).toEqual([
        { value: "Purchase", count: 1 },
        { value: "Signup", count: 1 },
      ]);
      const plans = await tally.stats.query(accountId, id, {
        name: "event_property",
        from: day,
        to: day,
        event: "Signup",
        property: "plan",
      });
      expect(plans.data).toEqual([{ value: "pro", count: 1 }]);
    } finally {
      await tally.close();
    }
  });
});
