// The Next.js adapter without Next.js: requests as `next start` hands them to a catch-all route
// handler and to the proxy (request.url on its own host name, the browser's host, scheme and
// address in X-Forwarded headers, the catch-all's segments in the context). The mount comes
// from the segments, links and pageviews carry the public URL, answers are uncompressed.
// test/consumer/ runs the same adapter under a real `next build` and `next start`.
import type { Tally } from "@tally-analytics/core";
import { countNextPageviews, tallyNext, visitorOf } from "@tally-analytics/server/next";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTempTally } from "../support/tally-fixture.js";

const CHROME = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
let tally: Tally;
let dispose: () => Promise<void>;
let accountId = 0;
let websiteId = 0;
let routes: ReturnType<typeof tallyNext>;

/** A request as next start passes it on: its own host in the URL, the browser's in the headers. */
function asNextPasses(path: string, init: RequestInit = {}, headers: Record<string, string> = {}): Request {
  return new Request(`http://localhost:3000${path}`, {
    ...init,
    headers: {
      "x-forwarded-host": "shop.example",
      "x-forwarded-proto": "https",
      "x-forwarded-for": "81.2.69.142",
      "user-agent": CHROME,
      "accept-encoding": "gzip, br",
      ...headers,
    },
  });
}
const segments = (...path: string[]) => ({ params: Promise.resolve(path.length > 0 ? { path } : {}) });

beforeAll(async () => {
  ({ tally, dispose } = createTempTally({ serverViewWaitMs: 0 }));
  ({ accountId } = await tally.accounts.create({ name: "shop" }));
  websiteId = (await tally.websites.create(accountId, { domain: "shop.example" })).id;
  routes = tallyNext(tally, { authenticate: (request) => (request.headers.get("cookie") === "session=owner" ? accountId : null) });
});

afterAll(async () => {
  await dispose?.();
});

it("learns the mount from the catch-all's segments; links carry the public URL; answers are uncompressed", async () => {
  const listed = await routes.GET(
    asNextPasses("/analytics/api/v1/websites", {}, { cookie: "session=owner" }),
    segments("api", "v1", "websites"),
  );
  expect(listed.status).toBe(200);
  expect(listed.headers.get("content-encoding")).toBeNull();
  const body = (await listed.json()) as { data: { domain: string }[]; links: { first: string } };
  expect(body.data.map((website) => website.domain)).toEqual(["shop.example"]);
  expect(body.links.first).toBe("https://shop.example/analytics/api/v1/websites?page=1");
  // The mount itself (no segments): the dashboard.
  const dashboard = await routes.GET(asNextPasses("/analytics/"), segments());
  expect(dashboard.status).toBe(200);
  expect(dashboard.headers.get("content-type")).toMatch(/^text\/html/);
  expect((await routes.GET(asNextPasses("/analytics/script.js"), segments("script.js"))).headers.get("content-encoding")).toBeNull();
});

it("counts the tracker's hit and the proxy's pageview from the browser's address, at the public URL", async () => {
  const hit = JSON.stringify({ u: "https://shop.example/", s: "1280x800", l: "en" });
  const collected = await routes.POST(
    asNextPasses("/analytics/collect", { method: "POST", body: hit }, { "content-type": "text/plain" }),
    segments("collect"),
  );
  expect(collected.status).toBe(202);
  const count = countNextPageviews(tally, { exclude: ["/analytics"] });
  const navigate = { accept: "text/html", "sec-fetch-dest": "document", "sec-fetch-mode": "navigate" };
  count(asNextPasses("/pricing", {}, { ...navigate, "x-forwarded-for": "81.2.69.143" }));
  count(asNextPasses("/analytics/", {}, navigate)); // excluded
  count(asNextPasses("/logo.png", {}, navigate)); // a file
  await tally.flush();
  const day = new Date().toISOString().slice(0, 10);
  const pages = await tally.stats.query(accountId, websiteId, { name: "page", from: day, to: day });
  expect(pages.data.map((row) => [row.value, row.count])).toEqual([
    ["/", 1],
    ["/pricing", 1],
  ]);
  expect(visitorOf(asNextPasses("/checkout"))).toEqual({ url: "https://shop.example/checkout", ip: "81.2.69.142", userAgent: CHROME });
});

it("a catch-all whose segments do not end the path is answered 404, naming the mount it expected", async () => {
  const answer = await routes.GET(asNextPasses("/analytics/api/v1/websites"), segments("other"));
  expect(answer.status).toBe(404);
  expect(((await answer.json()) as { message: string }).message).toContain('"/analytics"');
  // A Host no URL can have: the request's own URL, no crash.
  const odd = await routes.GET(asNextPasses("/analytics/script.js", {}, { "x-forwarded-host": "a b" }), segments("script.js"));
  expect(odd.status).toBe(200);
});
