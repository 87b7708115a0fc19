/**
 * Behind a proxy, the client cannot choose its IP. Express's `trust
 * proxy` convention, walked from the right: hops are skipped while trusted, the first
 * untrusted address is the client, anything to its left (which the client wrote itself)
 * is never read. `true` trusts one hop. With `TRUST_PROXY=true` the left-most
 * X-Forwarded-For entry used to be taken: any client could pick its address (and so
 * dodge `exclude_ips`, per-address limits and visitor counting). An invalid `trustProxy`
 * is refused by createTally with a clear error instead of being half read.
 */
import { createTally, type TrustProxy } from "@tally-analytics/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { proxyTrust } from "@tally-analytics/server/internal";
import { createTempTally } from "../support/tally-fixture.js";
import { transports } from "../support/transports.js";
import { CHROME, dayFrom, killAllChildren, spawnServe, tempDirectory } from "./support.js";

const ip = (trust: TrustProxy, socket: string, headers: Record<string, string>) =>
  proxyTrust(trust).clientIp(socket, (name) => headers[name]);

describe("proxy trust", () => {
  it("true is one hop: a client that sends its own X-Forwarded-For through the proxy gets the address the proxy saw", () => {
    // The client wrote "6.6.6.6"; the proxy appended the address it saw.
    expect(ip(true, "10.0.0.2", { "x-forwarded-for": "6.6.6.6, 203.0.113.9" })).toBe("203.0.113.9");
    expect(ip(true, "10.0.0.2", { "x-forwarded-for": "203.0.113.9" })).toBe("203.0.113.9");
    expect(ip(true, "10.0.0.2", { forwarded: 'for="6.6.6.6", for="[2001:db8::9]:443"' })).toBe("2001:db8::9");
    expect(ip(true, "10.0.0.2", {})).toBe("10.0.0.2");
    // The proxy wrote something that is no address: the client is unknown, the proxy is counted.
    expect(ip(true, "10.0.0.2", { "x-forwarded-for": "6.6.6.6, unknown" })).toBe("10.0.0.2");
  });

  it("a hop count n takes the n-th address from the right (the farthest when the chain is shorter)", () => {
    const chain = { "x-forwarded-for": "6.6.6.6, 203.0.113.9, 10.0.0.3" };
    expect(ip(1, "10.0.0.2", chain)).toBe("10.0.0.3");
    expect(ip(2, "10.0.0.2", chain)).toBe("203.0.113.9");
    expect(ip(3, "10.0.0.2", chain)).toBe("6.6.6.6");
    expect(ip(9, "10.0.0.2", chain)).toBe("6.6.6.6");
    expect(ip(0, "10.0.0.2", chain)).toBe("10.0.0.2");
    expect(ip(false, "10.0.0.2", chain)).toBe("10.0.0.2");
  });

  it("a CIDR list skips trusted hops from the right, IPv4 and IPv6 alike; an untrusted peer's headers are ignored", () => {
    const trusted = ["10.0.0.0/8", "2001:db8:ffff::/48", "::1"];
    expect(ip(trusted, "10.0.0.2", { "x-forwarded-for": "6.6.6.6, 203.0.113.9, 10.1.2.3, 2001:db8:ffff::7" })).toBe("203.0.113.9");
    expect(ip(trusted, "::1", { "x-forwarded-for": "6.6.6.6, 2001:db8:1::5" })).toBe("2001:db8:1::5");
    expect(ip(trusted, "::ffff:10.0.0.2", { "x-forwarded-for": "198.51.100.4" })).toBe("198.51.100.4");
    expect(ip(trusted, "198.51.100.99", { "x-forwarded-for": "6.6.6.6" })).toBe("198.51.100.99");
    // Every hop trusted: the farthest.
    expect(ip(trusted, "10.0.0.2", { "x-forwarded-for": "10.9.9.9, 10.1.1.1" })).toBe("10.9.9.9");
  });

  it("createTally refuses an invalid trustProxy with an error naming it", () => {
    const refused: [unknown, RegExp][] = [
      [["maybe"], /"maybe" is not an IP address or CIDR/],
      [["10.0.0.0/8", "10.0.0.0/33"], /"10\.0\.0\.0\/33" is not an IP address or CIDR/],
      [["1.2.3.4/x"], /"1\.2\.3\.4\/x"/],
      [["2001:db8::/129"], /"2001:db8::\/129"/],
      [[""], /"" is not an IP address/],
      [-1, /a hop count must be a whole number ≥ 0, got -1/],
      [1.5, /got 1\.5/],
      ["true", /trustProxy must be true, false, a hop count or a list/],
      ["10.0.0.0/8", /trustProxy must be/],
    ];
    for (const [trustProxy, message] of refused) {
      expect(() => createTally({ database: ":memory:", trustProxy: trustProxy as TrustProxy }), JSON.stringify(trustProxy)).toThrow(
        message,
      );
    }
    for (const trustProxy of [true, false, 0, 2, [], ["10.0.0.0/8", " 192.168.0.1 ", "fd00::/8", "::1"]] as TrustProxy[]) {
      const tally = createTally({ database: ":memory:", trustProxy });
      void tally.close();
    }
  });
});

describe.each(transports.filter((t) => ["fetch handler", "node:http", "fastify"].includes(t.name)))(
  "a spoofed X-Forwarded-For through $name",
  (transport) => {
    const fixture = createTempTally({ trustProxy: true });
    let served: Awaited<ReturnType<typeof transport.serve>>;
    let accountId = 0;
    let siteId = 0;

    beforeAll(async () => {
      served = await transport.serve(fixture.tally);
      accountId = (await fixture.tally.accounts.create()).accountId;
      siteId = (
        await fixture.tally.websites.create(accountId, { domain: "spoof.example", exclude_bots: 0, exclude_ips: "198.51.100.0/24" })
      ).id;
    });
    afterAll(async () => {
      await served.close();
      await fixture.dispose();
    });

    it("cannot dodge exclude_ips: the address the proxy appended is the one checked", async () => {
      const hit = (xff: string) =>
        served.fetch("/collect", {
          method: "POST",
          headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": xff },
          body: JSON.stringify({ u: "https://spoof.example/" }),
        });
      const spoofed = await hit("203.0.113.50, 198.51.100.8");
      expect(spoofed.status).toBe(202);
      expect(spoofed.headers.get("x-tally-dropped")).toBe("excluded-ip");
      const honest = await hit("203.0.113.50");
      expect(honest.headers.get("x-tally-dropped")).toBeNull();
      await fixture.tally.flush();
      const visitors = await fixture.tally.stats.query(accountId, siteId, { name: "visitors", from: dayFrom(-1), to: dayFrom(1) });
      expect(visitors.data.reduce((total, row) => total + row.count, 0)).toBe(1);
    });
  },
);

describe("TRUST_PROXY=true in tally serve", () => {
  afterAll(() => killAllChildren());

  it("takes one hop: a client cannot choose the address its hits are excluded or counted by", async () => {
    const dir = tempDirectory("tally-proxy-");
    const key = "tly_proxy_trust_reliability_key_0123456789";
    try {
      const server = await spawnServe({ DATABASE_URL: `file:${dir.path}/tally.sqlite`, TALLY_API_KEY: key, TRUST_PROXY: "true" });
      const created = await fetch(`${server.base}/api/v1/websites`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ domain: "served.example", exclude_bots: 0, exclude_ips: "198.51.100.0/24" }),
      });
      expect(created.status).toBe(201);
      const hit = await fetch(`${server.base}/collect`, {
        method: "POST",
        headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": "203.0.113.50, 198.51.100.8" },
        body: JSON.stringify({ u: "https://served.example/" }),
      });
      expect(hit.headers.get("x-tally-dropped")).toBe("excluded-ip");
      await server.stop();
    } finally {
      dir.remove();
    }
  });
});
