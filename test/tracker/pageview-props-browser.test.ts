// Properties on pageviews, in real headless Chromium against a real embedded
// Tally (SQLite, node:http, mounted under /analytics): the extension build's data-props,
// and Plausible's snippet build (script.pageview-props.js with event-* attributes, and
// plausible("pageview", {props})). Read back through /api/v1/stats: the property breakdown
// (`event_property` with `event=pageview`) and statistics filtered by `prop:<name>`. An event's
// revenue (tally.track's third argument, Plausible's `revenue` option) is read from its table.
//
// Every test gets its own Tally, database and port. Headless Chromium is a bot to isbot:
// the website is created with exclude_bots 0. One browser context is one visitor.
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { skipWithoutChromium as skip, warnIfSkipped } from "../support/chromium.js";
import { chromiumPerTest, expectTodaysStats, PLAIN_PAGE, scriptPage, todayUtc } from "../support/browser-pages.js";
import { startEmbeddedSite, type EmbeddedSite } from "../support/embedded-site.js";

warnIfSkipped("pageview-props-browser");

interface Site extends EmbeddedSite {
  pages: Map<string, string>;
}

/** `data-props` with the JSON of `props`, quoted for an HTML attribute. */
const dataProps = (props: unknown) => `data-props='${JSON.stringify(props)}'`;

async function startSite(): Promise<Site> {
  const pages = new Map<string, string>();
  const embedded = await startEmbeddedSite("tally-pageprops-", (handler) => (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path.startsWith("/analytics/")) handler(req, res);
    else if (path === "/favicon.ico") res.writeHead(204).end();
    else {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(pages.get(path) ?? PLAIN_PAGE);
    }
  });
  return Object.assign(embedded, { pages });
}

const session = chromiumPerTest(startSite);

/** Polls until `expected` shows up (beacons are asynchronous), then asserts it exactly. */
const expectStats = (name: string, expected: Record<string, number>, extra: Record<string, string> = {}) =>
  expectTodaysStats(session.site, { name, expected, extra });

/** The pageviews' breakdown by one property. */
const byProperty = (property: string) => ({ event: "pageview", property });

/** The events' revenue stored so far: event name, amount in ten-thousandths, currency. */
async function revenues(): Promise<{ event: string; amount: number; currency: string }[]> {
  await session.site.tally.flush();
  const db = new Database(join(session.site.directory, "tally.sqlite"), { readonly: true });
  try {
    return db
      .prepare("select d.value as event, r.amount, r.currency from event_revenue r join dimensions d on d.id = r.event order by r.time")
      .all() as { event: string; amount: number; currency: string }[];
  } finally {
    db.close();
  }
}

/** Opens each path in turn in one tab, each pageview counted before the next page. */
async function visit(paths: readonly string[]): Promise<Page> {
  const tab = await session.newPage();
  for (const [index, path] of paths.entries()) {
    await tab.goto(`${session.site.origin}${path}`);
    await expectStats("pageviews", { [todayUtc()]: index + 1 });
  }
  return tab;
}

describe.skipIf(skip)("pageview properties → embedded Tally, in Chromium", () => {
  it("script.ext.js: data-props gives the pageview its properties, listed under the event pageview and selected by prop: filters", async () => {
    session.site.pages.set("/posts/a", scriptPage({ attrs: dataProps({ author: "Jane", words: 1200, draft: false }) }));
    session.site.pages.set("/posts/b", scriptPage({ attrs: dataProps({ author: "Ünal Öz" }) }));
    session.site.pages.set("/posts/c", scriptPage({ attrs: dataProps({ author: "Jane" }) }));
    session.site.pages.set("/about", scriptPage());
    session.site.pages.set("/broken", scriptPage({ attrs: "data-props='{not json'" }));
    session.site.pages.set("/list", scriptPage({ attrs: dataProps(["Jane"]) }));
    // One visitor, one visit: a second visitor (another context) reads only /about.
    const tab = await visit(["/posts/a", "/posts/b", "/posts/c", "/about", "/broken", "/list"]);
    await tab.evaluate(() =>
      (window as unknown as { tally: { track(name: string, props: object, revenue: object): void } }).tally.track(
        "Share",
        { author: "Jane" },
        { amount: 19.5, currency: "EUR" },
      ),
    );
    await expectStats("event", { Share: 1 });
    expect(await revenues()).toEqual([{ event: "Share", amount: 195_000, currency: "EUR" }]);
    const firefox = await session.browser.newContext({
      userAgent: "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0",
    });
    await (await firefox.newPage()).goto(`${session.site.origin}/about`);
    await expectStats("pageviews", { [todayUtc()]: 7 });
    await firefox.close();

    // The breakdown: pageviews by their property (numbers and booleans as text); a page
    // whose data-props is no JSON object counted without properties.
    await expectStats("event_property", { Jane: 2, "Ünal Öz": 1 }, byProperty("author"));
    await expectStats("event_property", { "1200": 1 }, byProperty("words"));
    await expectStats("event_property", { false: 1 }, byProperty("draft"));
    // The event's property is the event's, apart from the pageviews'.
    await expectStats("event_property", { Jane: 1 }, { event: "Share", property: "author" });
    await expectStats("page", { "/posts/a": 1, "/posts/b": 1, "/posts/c": 1, "/about": 2, "/broken": 1, "/list": 1 });

    // prop: filters select the pageviews that have the property, and the visits and visitors that had them.
    const jane = { filter: "prop:author:is:Jane" };
    await expectStats("pageviews", { [todayUtc()]: 2 }, jane);
    await expectStats("page", { "/posts/a": 1, "/posts/c": 1 }, jane);
    await expectStats("visitors", { [todayUtc()]: 1 }, jane);
    await expectStats("visits", { [todayUtc()]: 1 }, jane);
    await expectStats("event", { Share: 1 }, jane);
    await expectStats("page", { "/posts/b": 1 }, { filter: "prop:author:contains:ünal" });
    // is_not: the visits none of whose hits has either value (the other visitor's), as for events.
    await expectStats("page", { "/about": 1 }, { filter: "prop:author:is_not:Jane|Ünal Öz" });
    // Filtered statistics are counted from the stored hits, the unfiltered ones from rollups: both agree.
    await expectStats("event_property", { Jane: 2 }, { ...byProperty("author"), filter: "prop:author:is:Jane" });
  });

  it("script.ext.js: data-props is read at each pageview, so a single-page app sets the next page's properties before it navigates", async () => {
    session.site.pages.set("/app", scriptPage({ attrs: `id="tally" ${dataProps({ section: "home" })}` }));
    const tab = await visit(["/app"]);
    await tab.evaluate(() => {
      document.getElementById("tally")!.dataset.props = JSON.stringify({ section: "settings" });
      history.pushState({}, "", "/app/settings");
    });
    await expectStats("pageviews", { [todayUtc()]: 2 });
    await tab.evaluate(() => {
      delete document.getElementById("tally")!.dataset.props;
      history.pushState({}, "", "/app/help");
    });
    await expectStats("pageviews", { [todayUtc()]: 3 });
    await expectStats("event_property", { home: 1, settings: 1 }, byProperty("section"));
    await expectStats("page", { "/app/settings": 1 }, { filter: "prop:section:is:settings" });
  });

  it("the default script.js sends no pageview properties (its budget is spent); data-props there does nothing", async () => {
    session.site.pages.set("/plain", scriptPage({ src: "script.js", attrs: dataProps({ author: "Jane" }) }));
    await visit(["/plain"]);
    await expectStats("event_property", {}, byProperty("author"));
  });

  it("Plausible's snippet: script.pageview-props.js sends event-* attributes; plausible('pageview', {props}) sends its props", async () => {
    const snippet = (file: string, attrs: string, body = "") =>
      scriptPage({ src: `js/${file}`, attrs: `data-domain="127.0.0.1" ${attrs}`, body });
    session.site.pages.set("/attributes", snippet("script.pageview-props.js", 'event-author="Jane" event-type="post"'));
    session.site.pages.set("/unnamed", snippet("script.js", 'event-author="Nobody"')); // pageview-props not named
    const queued =
      "<script>window.plausible=window.plausible||function(){(plausible.q=plausible.q||[]).push(arguments)};" +
      'plausible("pageview", { props: { author: "Bob" } })</script>';
    session.site.pages.set("/manual", snippet("script.manual.js", "", queued));
    const tab = await visit(["/attributes", "/unnamed", "/manual"]);
    await expectStats("event_property", { Jane: 1, Bob: 1 }, byProperty("author"));
    await expectStats("event_property", { post: 1 }, byProperty("type"));

    // An event on a pageview-props page carries the attributes too (Plausible's script does), its own props first.
    await tab.goto(`${session.site.origin}/attributes`);
    await expectStats("pageviews", { [todayUtc()]: 4 });
    await tab.evaluate(() =>
      (window as unknown as { plausible(name: string, options: object): void }).plausible("Signup", {
        props: { type: "trial" },
        revenue: { amount: "7.25", currency: "usd" },
      }),
    );
    await expectStats("event_property", { Jane: 1 }, { event: "Signup", property: "author" });
    await expectStats("event_property", { trial: 1 }, { event: "Signup", property: "type" });
    await expectStats("page", { "/attributes": 2 }, { filter: "prop:author:is:Jane" });
    expect(await revenues()).toEqual([{ event: "Signup", amount: 72_500, currency: "USD" }]);
  });
});
