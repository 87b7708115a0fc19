// Shared by the browser tests: where Chromium is, whether to skip, and how to launch it.
import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (apt-get install -y chromium). */
export const CHROMIUM = "/usr/bin/chromium";

/** Skipped locally when Chromium is missing; with CI=true the tests run (and fail) instead. */
export const skipWithoutChromium = !existsSync(CHROMIUM) && process.env.CI !== "true";

/** Call once at module level: explains a skip so it is never silent. */
export function warnIfSkipped(suite: string): void {
  if (!skipWithoutChromium) return;
  console.warn(
    `${suite} tests skipped: ${CHROMIUM} not found (install: apt-get install -y chromium). ` + "With CI=true they run and fail instead.",
  );
}

/**
 * One headless Chromium, quiet: no background requests, sync or first-run pages. `args`
 * adds switches (`--user-agent=…`: unlike a context's user agent, it also holds for the
 * beacons a page sends while it unloads).
 */
export async function launchChromium(args: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...args,
    ],
  });
}
