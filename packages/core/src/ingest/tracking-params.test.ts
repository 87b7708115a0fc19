import { describe, expect, it } from "vitest";
import { compileParamFilter, pageOf } from "./page.js";
import { CLICK_ID_PARAMS, clickIdOf, isTrackingParam, withoutTrackingParams } from "./tracking-params.js";

const page = (url: string, excluded = "") => pageOf(new URL(url), compileParamFilter(excluded), false);

describe("tracking parameters", () => {
  it("are utm_* and the documented click ids, compared as spelled", () => {
    for (const name of [...CLICK_ID_PARAMS, "utm_source", "utm_id", "utm_source_platform"]) expect(isTrackingParam(name), name).toBe(true);
    for (const name of ["utm", "UTM_SOURCE", "GCLID", "q", "page", "ref", "gclid2", "x_utm_source"])
      expect(isTrackingParam(name), name).toBe(false);
  });

  it("never split a page: removed whatever exclude_params says, other parameters kept as written", () => {
    expect(page("https://a.example/sale?fbclid=IwAR1")).toBe("/sale");
    expect(page("https://a.example/sale?gclid=x&gbraid=y&wbraid=z&msclkid=m")).toBe("/sale");
    expect(page("https://a.example/sale?utm_source=news&utm_medium=email&utm_campaign=spring")).toBe("/sale");
    expect(page("https://a.example/sale?q=Shoes+Red&utm_source=x&page=2&_ga=1.2&_gl=abc")).toBe("/sale?q=Shoes+Red&page=2");
    expect(page("https://a.example/sale?ttclid=1&twclid=2&li_fat_id=3&mc_cid=4&mc_eid=5&yclid=6&dclid=7")).toBe("/sale");
    // An escaped name is the same parameter; a bare name too.
    expect(page("https://a.example/sale?utm%5Fsource=x&gclid")).toBe("/sale");
    // exclude_params adds to the list; `&` still drops everything.
    expect(page("https://a.example/sale?ref=hn&fbclid=1&q=1", "ref")).toBe("/sale?q=1");
    expect(page("https://a.example/sale?q=1&fbclid=1", "&")).toBe("/sale");
    // `&` with `!name` lines keeps only those (and never a tracking parameter).
    expect(page("https://a.example/thanks?email=a%40b.c&q=shoes&page=2&gclid=1", "&\n!q\n!page")).toBe("/thanks?q=shoes&page=2");
    expect(page("https://a.example/thanks?email=a%40b.c", "&\n!q")).toBe("/thanks");
    expect(page("https://a.example/s?q=1&ref=x", "!q\nref")).toBe("/s?q=1");
    // Untouched queries stay byte for byte.
    expect(page("https://a.example/s?b=2&a=%20x")).toBe("/s?b=2&a=%20x");
    expect(page("https://a.example/s?UTM_SOURCE=kept")).toBe("/s?UTM_SOURCE=kept");
  });

  it("clean page values of imports the same way, fragments and paths untouched", () => {
    expect(withoutTrackingParams("/sale")).toBe("/sale");
    expect(withoutTrackingParams("/sale?utm_source=x")).toBe("/sale");
    expect(withoutTrackingParams("/sale?q=1&fbclid=2#top")).toBe("/sale?q=1#top");
    expect(withoutTrackingParams("/app#/x?utm_source=y")).toBe("/app#/x?utm_source=y");
    expect(withoutTrackingParams("/s?b=2&a=1")).toBe("/s?b=2&a=1");
    expect(withoutTrackingParams("/s?next=/x?utm_source=y&gclid=1")).toBe("/s?next=/x?utm_source=y");
  });

  it("name the click id a URL carries, for sources and channels", () => {
    expect(clickIdOf(new URL("https://a.example/?q=1&fbclid=abc&gclid=g"))).toEqual({ name: "gclid", value: "g" });
    expect(clickIdOf(new URL("https://a.example/?msclkid=m"))).toEqual({ name: "msclkid", value: "m" });
    expect(clickIdOf(new URL("https://a.example/?utm_source=x"))).toBeNull();
  });
});
