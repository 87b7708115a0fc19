// One Tally for the whole app. Next.js loads this file in several bundles (the route
// handlers, the proxy) and again after each edit in `next dev`: the instance lives on
// globalThis so there is only ever one, and it opens on first use, never during `next build`.
import { createTally } from "@tally-analytics/core";
import { countNextPageviews, tallyNext } from "@tally-analytics/server/next";

function start() {
  const tally = createTally({ database: "file:./data/tally.sqlite" });
  const ready = (async () => {
    if ((await tally.accounts.count()) === 0) {
      const { accountId } = await tally.accounts.create({ name: "example" });
      await tally.websites.create(accountId, { domain: "127.0.0.1" }); // this page, as it runs here
    }
  })();
  return {
    tally,
    ready,
    routes: tallyNext(tally, { authenticate: accountOf }),
    count: countNextPageviews(tally, { exclude: ["/analytics"] }),
  };
}

/** @returns {ReturnType<typeof start>} */
export const analytics = () => (globalThis.tally ??= start());

// The app's own sign-in, cut down to a cookie (yours looks a session up): account 1's owner.
function accountOf(request) {
  return /(?:^|;\s*)session=owner(?:;|$)/.test(request.headers.get("cookie") ?? "") ? 1 : null;
}
