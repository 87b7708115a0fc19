// The recipe of docs/guide/inside-your-app.md for Tally in an app's own tests: an in-memory Tally, a test website,
// and `recorded`, which waits for the buffer (and for server pageviews still waiting for
// the tracker) before it reads. The app here is a real Express app on port 0.
import type { AddressInfo } from "node:net";
import { get, type IncomingMessage, type Server } from "node:http";
import express from "express";
import { createTally } from "@tally-analytics/core";
import { createTestWebsite, recorded } from "@tally-analytics/core/testing";
import { countPageviews } from "@tally-analytics/server/node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

type Events = { Signup: { plan: "free" | "pro" } };

/** The app under test: a home page, and a sign-up that records its event on the server. */
function createApp(tally: ReturnType<typeof createTally<Events>>) {
  const app = express();
  app.use(countPageviews(tally));
  app.use(express.json());
  app.get("/", (_req, res) => void res.type("html").send("<!doctype html><h1>Welcome</h1>"));
  app.post("/signup", async (req, res) => {
    const plan = (req.body as { plan?: string }).plan === "pro" ? "pro" : "free";
    const url = `http://app.test${req.originalUrl}`;
    await tally.record("Signup", { url, ip: req.ip ?? "127.0.0.1", userAgent: req.get("user-agent") ?? "", props: { plan } });
    res.status(201).json({ plan });
  });
  return app;
}

describe("Tally in an app's tests (createTally with :memory:)", () => {
  let tally: ReturnType<typeof createTally<Events>>;
  let server: Server;
  let origin: string;

  beforeEach(async () => {
    tally = createTally<Events>({ database: ":memory:" });
    await createTestWebsite(tally, "app.test");
    server = await new Promise((resolve) => {
      const listening = createApp(tally).listen(0, "127.0.0.1", () => resolve(listening));
    });
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await tally.close();
  });

  it("signing up records Signup with plan pro", async () => {
    const response = await fetch(`${origin}/signup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ plan: "pro" }),
    });
    expect(response.status).toBe(201);
    expect(await recorded(tally, "app.test")).toEqual({ Signup: 1 });
    expect(await recorded(tally, "app.test", "event_property", { event: "Signup", property: "plan" })).toEqual({ pro: 1 });
  });

  it("counts the page the app served, without waiting for a tracker", async () => {
    // node:http, because fetch cannot name another host: the page is served as app.test's.
    const page = await new Promise<IncomingMessage>((resolve, reject) =>
      get(`${origin}/`, { headers: { accept: "text/html", host: "app.test" } }, resolve).on("error", reject),
    );
    page.resume();
    expect(page.statusCode).toBe(200);
    expect(page.headers["server-timing"]).toMatch(/^tally;desc=/);
    expect(await recorded(tally, "app.test", "page")).toEqual({ "/": 1 });
    expect(await recorded(tally, "app.test")).toEqual({});
  });

  it("names an unknown website clearly", async () => {
    await expect(recorded(tally, "other.test")).rejects.toThrow("No website is registered for other.test.");
  });
});
