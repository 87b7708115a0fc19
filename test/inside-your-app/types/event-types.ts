// Type-level tests of typed events, checked by `tsc -p test/inside-your-app/types`
// (test/inside-your-app/event-types.test.ts runs it). Each `@ts-expect-error` must be an
// error: tsc reports an unused one, so a wrong name or property that compiles fails the test.
import { createTally, type Tally } from "@tally-analytics/core";
import { countPageviews, toNodeHandler } from "@tally-analytics/server/node";
import type { TallyTracker } from "@tally-analytics/tracker";

type Events = {
  Signup: { plan: "free" | "pro" };
  Purchase: { amount: number; coupon?: string };
  Logout: Record<never, never>;
};

declare global {
  interface Window {
    tally: TallyTracker<Events>;
  }
}

const page = { url: "https://shop.example/checkout", ip: "192.0.2.1", userAgent: "Mozilla/5.0" };

export async function serverTypes(): Promise<void> {
  const tally = createTally<Events>({ database: ":memory:" });

  await tally.record("Signup", { ...page, props: { plan: "pro" } });
  await tally.record("Purchase", { ...page, props: { amount: 42 } });
  await tally.record("Purchase", { ...page, props: { amount: 42, coupon: "SPRING" } });
  await tally.record("Logout", page);
  await tally.collect({ ...page, event: "Signup", props: { plan: "free" } });
  await tally.collect(page); // a pageview

  // @ts-expect-error: not one of the app's events
  await tally.record("Signin", { ...page, props: { plan: "pro" } });
  // @ts-expect-error: not one of the plans
  await tally.record("Signup", { ...page, props: { plan: "enterprise" } });
  // @ts-expect-error: the plan is required
  await tally.record("Signup", page);
  // @ts-expect-error: an amount is a number
  await tally.record("Purchase", { ...page, props: { amount: "42" } });
  // @ts-expect-error: collect checks names and properties too
  await tally.collect({ ...page, event: "Signup", props: { plan: "gold" } });
  // @ts-expect-error: and event names
  await tally.collect({ ...page, event: "Sign up" });

  // A typed Tally still mounts and counts like any other.
  toNodeHandler(tally);
  countPageviews(tally);

  // Untyped: any name, any properties.
  const untyped: Tally = createTally({ database: ":memory:" });
  await untyped.record("Anything", { ...page, props: { at: 1, ok: true } });
}

// @ts-expect-error: a property is a string, number or boolean
createTally<{ Signup: { when: Date } }>();

export function browserTypes(): void {
  window.tally.track("Signup", { plan: "pro" });
  window.tally.track("Purchase", { amount: 9.5 });
  window.tally.track("Logout");
  // @ts-expect-error: not one of the app's events
  window.tally.track("Signin");
  // @ts-expect-error: not one of the plans
  window.tally.track("Signup", { plan: "gold" });
  // @ts-expect-error: the plan is required
  window.tally.track("Signup");
}
