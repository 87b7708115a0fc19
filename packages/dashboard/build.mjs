// Builds the dashboard into dist/ and the module the server serves it from.
//   dist/dashboard.js, dist/dashboard.css   the front end (what {base}/assets/* serves), English built in: an ES module
//   dist/<part>-<hash>.js                    the parts it imports only when they are opened (the live view, the map…)
//                                            and the chunks they share, named by their content
//   dist/messages-<locale>.json              every other language's messages, fetched only by its readers
//   dist/sign-in-messages.json               the sign-in pages' texts in every language, read by the server
//   dist/world.json                          the world map's countries as SVG paths (world.mjs), fetched by the maps
//   dist/<file>.gz, dist/<file>.br             each file compressed at the highest levels, sent as it is
//   dist/index.js                            export const dashboardAssets: each file's type and version; its body
//                                            and compressed forms are read from dist/ when first served
// Prints raw and gzip (level 9) sizes; exits 1 when the first load (JS + CSS) is above the budget.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build, transform } from "esbuild";
import { worldMap } from "./world.mjs";

/**
 * The first load, JS + CSS, gzipped: a dashboard should cost less than one hero image.
 * Raised from 20,000 (17.0 KB then) when every text went through the message table (the
 * English table is ~3.5 KB of it; other languages load on demand) and the dashboard grew
 * hourly charts, Direct / None, guided empty states, goals in place, page goals,
 * sparklines, share links and loading skeletons (~3.5 KB). Raised to 27,500 (27.1 KB then)
 * for teams (issue 28): the Team page, two-factor set-up, a person's own keys and their
 * texts (~2.6 KB); the sign-in pages themselves are server-rendered and cost nothing here.
 * Raised to 29,000 (28.8 KB then) for funnels and journeys (issue 27): the funnel card with
 * its form, the journey card and their texts (~1.5 KB). Raised to 30,000 (29.8 KB then) for
 * the Engagement card (issue 27): scroll depth, time on page and coloured web vitals per page,
 * their empty state and texts (~0.8 KB); a card among the others, on the first screen's
 * scroll, is not worth a second request (a lazy chunk would cost its own loader and round trip).
 * Raised to 32,000 (31.6 KB then) for the Alerts card of a website's settings: its rules, the
 * form, a new rule's signing key, the delivery log and their texts (~1.6 KB); loading it apart
 * would take a loader and a message table of its own for one card.
 * Since the dashboard is ES modules, what is not the statistics page (a website's settings and
 * tracking code, adding one, the account, the team) loads when it is opened: 28.5 KB then (the Alerts card on a website's settings loads with them).
 * Raised to 37,000 (36.8 KB then) for what a Plausible or Umami user expects on the statistics
 * page itself: the filter builder's button (the builder loads when opened), saved segments in
 * the toolbar, annotations on the chart, the team's goals, the funnel step editor, country,
 * language, channel and device names in the reader's language, and ~140 texts in English
 * (~3 KB) and their styles (~0.8 KB; the live view, the sessions explorer, the map and the QR
 * code load when opened).
 */
const GZIP_BUDGET = 37_000;
const dist = new URL("./dist/", import.meta.url);
const source = (file) => new URL(`./src/${file}`, import.meta.url).pathname;

/** A module of src/ run at build time: its export `name` (src/messages.ts: every language's table). */
async function exported(file, name) {
  const result = await build({
    entryPoints: [source(file)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "neutral",
    tsconfigRaw: {},
  });
  const module = await import(`data:text/javascript;base64,${Buffer.from(result.outputFiles[0].text).toString("base64")}`);
  return module[name];
}

const scriptOptions = { bundle: true, write: false, minify: true, target: "es2020", legalComments: "none", tsconfigRaw: {} };

/**
 * The dashboard as ES modules: dashboard.js, and a file for each part imported only when it
 * opens (`import("./live-view.js")`) and each chunk such parts share, named by content so
 * they are cached for good. `messageFiles`: each language but English → its asset's path.
 * Answers every file's text, and which files the first load fetches (dashboard.js and what it imports statically).
 */
async function bundleDashboard(messageFiles, worldFile) {
  const result = await build({
    ...scriptOptions,
    entryPoints: { dashboard: source("main.ts") },
    format: "esm",
    splitting: true,
    outdir: "dist",
    chunkNames: "[name]-[hash]",
    metafile: true,
    define: { MESSAGE_FILES: JSON.stringify(messageFiles), WORLD_FILE: JSON.stringify(worldFile) },
  });
  const files = Object.fromEntries(result.outputFiles.map((file) => [file.path.split("/").pop(), file.text.trim()]));
  const outputs = Object.fromEntries(Object.entries(result.metafile.outputs).map(([path, output]) => [path.split("/").pop(), output]));
  const firstLoad = new Set();
  const visit = (file) => {
    if (firstLoad.has(file)) return;
    firstLoad.add(file);
    for (const imported of outputs[file].imports) if (imported.kind === "import-statement") visit(imported.path.split("/").pop());
  };
  visit("dashboard.js");
  return { files, firstLoad };
}

/** The web components for the host app's own pages: one classic script. */
async function bundleComponents() {
  const result = await build({
    ...scriptOptions,
    entryPoints: [source("components.ts")],
    format: "iife",
    define: { MESSAGE_FILES: "{}", WORLD_FILE: '""' },
  });
  return result.outputFiles[0].text.trim();
}

async function bundleStyles() {
  const result = await transform(readFileSync(source("styles.css"), "utf8"), { loader: "css", minify: true, target: "chrome100" });
  return result.code.trim();
}

const hash = (text) => createHash("sha256").update(text).digest("base64url").slice(0, 16);

rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
const tables = await exported("messages.ts", "MESSAGES");
const translations = Object.fromEntries(
  Object.entries(tables)
    .filter(([locale]) => locale !== "en")
    .map(([locale, table]) => [`messages-${locale}.json`, JSON.stringify(table)]),
);
const messageFiles = Object.fromEntries(
  Object.entries(translations).map(([file, text]) => [file.slice(9, -5), `assets/${file}?v=${hash(text)}`]),
);
const world = JSON.stringify(worldMap());
const dashboard = await bundleDashboard(messageFiles, `assets/world.json?v=${hash(world)}`);
const firstLoad = new Set([...dashboard.firstLoad, "dashboard.css"]);
// The web components for the host app's own pages (docs/guide/inside-your-app.md): not part of the dashboard's load.
const files = {
  ...dashboard.files,
  "dashboard.css": await bundleStyles(),
  ...translations,
  "components.js": await bundleComponents(),
  // English too (the script has it built in and never fetches it): what a page must not show in another language.
  "messages-en.json": JSON.stringify(tables.en),
  // The sign-in pages' texts in every language, for the server that renders them.
  "sign-in-messages.json": JSON.stringify(await exported("sign-in-messages.ts", "SIGN_IN_MESSAGES")),
  // The world map's countries, fetched when a map is first drawn (world.mjs).
  "world.json": world,
};
const typeOf = (file) =>
  (file.endsWith(".js") ? "text/javascript" : file.endsWith(".css") ? "text/css" : "application/json") + "; charset=utf-8";
let total = 0;
const assets = {};
for (const [file, text] of Object.entries(files)) {
  writeFileSync(new URL(file, dist), text);
  const gzipped = gzipSync(text, { level: 9 });
  const brotli = brotliCompressSync(text, {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: text.length },
  });
  if (firstLoad.has(file)) total += gzipped.length;
  console.log(`${file.padEnd(18)} ${Buffer.byteLength(text)} B raw, ${gzipped.length} B gzip, ${brotli.length} B brotli`);
  // Compressed once here, at the highest levels: the server sends these as they are.
  writeFileSync(new URL(`${file}.gz`, dist), gzipped);
  writeFileSync(new URL(`${file}.br`, dist), brotli);
  assets[file] = { contentType: typeOf(file), version: hash(text) };
}
console.log(`${"first load".padEnd(18)} ${total} B gzip, JS + CSS: ${[...firstLoad].join(", ")} (budget ${GZIP_BUDGET})`);

// The bodies stay in their files until first served: a host app that mounts the server
// and never opens the dashboard does not hold its ~140 kB of text, twice compressed besides.
writeFileSync(
  new URL("index.js", dist),
  [
    'import { readFileSync } from "node:fs";',
    "const read = (file) => readFileSync(new URL(file, import.meta.url));",
    "function asset(file, { contentType, version }) {",
    "  let body, encoded;",
    "  return {",
    "    contentType,",
    "    version,",
    '    get body() { return (body ??= read(file).toString("utf8")); },',
    '    get encoded() { return (encoded ??= { gzip: read(`${file}.gz`).toString("base64"), br: read(`${file}.br`).toString("base64") }); },',
    "  };",
    "}",
    `const built = ${JSON.stringify(assets)};`,
    "export const dashboardAssets = Object.fromEntries(Object.entries(built).map(([file, meta]) => [file, asset(file, meta)]));",
    `export const dashboardModules = ${JSON.stringify([...dashboard.firstLoad].filter((file) => file !== "dashboard.js"))};`,
    "",
  ].join("\n"),
);
writeFileSync(
  new URL("index.d.ts", dist),
  [
    "/** One built file of the dashboard. */",
    "export interface DashboardAsset {",
    "  readonly body: string;",
    "  readonly contentType: string;",
    "  /** base64url(sha256) first 16 chars: the `?v=` of its URL and, quoted, its ETag. */",
    "  readonly version: string;",
    "  /** The body compressed at build time (gzip -9, brotli q11), base64. */",
    "  readonly encoded: { readonly gzip: string; readonly br: string };",
    "}",
    "/** The minified front end served at `{base}/assets/{name}`: script, styles, and the messages of each language but English. */",
    `export declare const dashboardAssets: Readonly<Record<${Object.keys(files)
      .map((file) => JSON.stringify(file))
      .join(" | ")}, DashboardAsset>>;`,
    "/** The modules dashboard.js imports as it starts (the shell preloads them, so they come with it, not after it). */",
    "export declare const dashboardModules: readonly (keyof typeof dashboardAssets)[];",
    "",
  ].join("\n"),
);

if (total > GZIP_BUDGET) {
  console.error(`the dashboard is ${total} B gzipped, over the ${GZIP_BUDGET} B budget`);
  process.exit(1);
}
