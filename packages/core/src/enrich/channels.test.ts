import { describe, expect, it } from "vitest";
import { channelOf, clickIdOf } from "./channels.js";
import { categoryOf, sourceOf } from "./sources.js";

describe("sources", () => {
  it("names referring hosts from the list, keeps unnamed hosts, and falls back to utm_source", () => {
    expect(sourceOf("google.com", "")).toBe("Google");
    expect(sourceOf("google.de", "")).toBe("Google");
    expect(sourceOf("t.co", "")).toBe("Twitter");
    expect(sourceOf("l.facebook.com", "")).toBe("Facebook");
    expect(sourceOf("news.ycombinator.com", "")).toBe("Hacker News");
    expect(sourceOf("chatgpt.com", "")).toBe("ChatGPT");
    // A subdomain the list does not name takes its parent's name.
    expect(sourceOf("de.search.yahoo.com", "")).toBe("Yahoo!");
    expect(sourceOf("markosaric.com", "newsletter")).toBe("markosaric.com");
    expect(sourceOf("", "GOOGLE")).toBe("Google");
    expect(sourceOf("", "my-newsletter")).toBe("my-newsletter");
    expect(sourceOf("", "")).toBe("");
  });

  it("gives names their category", () => {
    expect(categoryOf("Google")).toBe("search");
    expect(categoryOf("Facebook")).toBe("social");
    expect(categoryOf("Gmail")).toBe("email");
    expect(categoryOf("Youtube")).toBe("video");
    expect(categoryOf("Amazon")).toBe("shopping");
    expect(categoryOf("Perplexity")).toBe("ai");
    expect(categoryOf("example.com")).toBe("");
  });
});

describe("channels (Plausible's rules)", () => {
  const channel = (source: string, tags: { s?: string; m?: string; c?: string } = {}, clickId = "") =>
    channelOf({ source, utmSource: tags.s ?? "", utmMedium: tags.m ?? "", utmCampaign: tags.c ?? "", clickId });

  it.each([
    ["Direct", channel("")],
    ["Organic Search", channel("Google")],
    ["Paid Search", channel("Google", {}, "gclid")],
    ["Paid Search", channel("Bing", {}, "msclkid")],
    ["Organic Search", channel("Bing", {}, "gclid")],
    ["Paid Search", channel("Google", { m: "cpc" })],
    ["Paid Search", channel("DuckDuckGo", { s: "bing_ads" })],
    ["Organic Social", channel("Twitter")],
    ["Paid Social", channel("Facebook", { m: "paid_social" })],
    ["Organic Video", channel("Youtube")],
    ["Paid Video", channel("Youtube", { s: "yt-ads" })],
    ["Organic Video", channel("example.com", { m: "video" })],
    ["Display", channel("example.com", { m: "banner" })],
    ["Paid Other", channel("example.com", { m: "cpm-test" })],
    ["Organic Shopping", channel("Amazon")],
    ["Organic Shopping", channel("", { c: "summer-shop" })],
    ["Paid Shopping", channel("", { m: "ppc", c: "shopping" })],
    ["Cross-network", channel("Google", { m: "cpc", c: "cross-network-q4" })],
    ["AI Assistants", channel("ChatGPT")],
    ["Email", channel("Gmail")],
    ["Email", channel("", { s: "newsletter" })],
    ["Email", channel("", { m: "E-Mail" })],
    ["Affiliates", channel("", { m: "affiliate" })],
    ["Audio", channel("", { m: "audio" })],
    ["SMS", channel("sms", { s: "sms" })],
    ["Mobile Push Notifications", channel("", { m: "web-push" })],
    ["Referral", channel("example.com")],
    ["Referral", channel("", { m: "link" })],
  ])("%s", (expected, actual) => expect(actual).toBe(expected));

  it("reads the click ids of the page URL", () => {
    expect(clickIdOf(new URL("https://a.example/?gclid=x"))).toBe("gclid");
    expect(clickIdOf(new URL("https://a.example/?q=1&msclkid=x"))).toBe("msclkid");
    expect(clickIdOf(new URL("https://a.example/?fbclid=x"))).toBe("");
  });
});
