// Builds the dashboard into dist/ and the module the server serves it from.
//   dist/dashboard.js, dist/dashboard.css   the front end (what {base}/assets/* serves)
//   dist/index.js                            export const dashboardAssets (each with its gzip and brotli forms)
// Prints raw and gzip (level 9) sizes; exits 1 above the budget.
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { build, transform } from "esbuild";

/** JS + CSS, gzipped: a dashboard should cost less than one hero image. */
const GZIP_BUDGET = 20_000;
const dist = new URL("./dist/", import.meta.url);
const source = (file) => new URL(`./src/${file}`, import.meta.url).pathname;

async function bundleScript() {
  const result = await build({
    entryPoints: [source("main.ts")],
    bundle: true,
    write: false,
    format: "iife",
    minify: true,
    target: "es2020",
    legalComments: "none",
    tsconfigRaw: {},
  });
  return result.outputFiles[0].text.trim();
}

async function bundleStyles() {
  const result = await transform(readFileSync(source("styles.css"), "utf8"), { loader: "css", minify: true, target: "chrome100" });
  return result.code.trim();
}

const hash = (text) => createHash("sha256").update(text).digest("base64url").slice(0, 16);

mkdirSync(dist, { recursive: true });
const files = { "dashboard.js": await bundleScript(), "dashboard.css": await bundleStyles() };
const types = { "dashboard.js": "text/javascript; charset=utf-8", "dashboard.css": "text/css; charset=utf-8" };
let total = 0;
const assets = {};
for (const [file, text] of Object.entries(files)) {
  writeFileSync(new URL(file, dist), text);
  const gzipped = gzipSync(text, { level: 9 });
  const brotli = brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: text.length } });
  total += gzipped.length;
  console.log(`${file.padEnd(14)} ${Buffer.byteLength(text)} B raw, ${gzipped.length} B gzip, ${brotli.length} B brotli`);
  // Compressed once here, at the highest levels: the server sends these as they are.
  const encoded = { gzip: gzipped.toString("base64"), br: brotli.toString("base64") };
  assets[file] = { body: text, contentType: types[file], version: hash(text), encoded };
}
console.log(`${"total".padEnd(14)} ${total} B gzip (budget ${GZIP_BUDGET})`);

writeFileSync(new URL("index.js", dist), `export const dashboardAssets = ${JSON.stringify(assets)};\n`);
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
    '/** The minified front end served at `{base}/assets/{name}`. */',
    'export declare const dashboardAssets: Readonly<Record<"dashboard.js" | "dashboard.css", DashboardAsset>>;',
    "",
  ].join("\n"),
);

if (total > GZIP_BUDGET) {
  console.error(`the dashboard is ${total} B gzipped, over the ${GZIP_BUDGET} B budget`);
  process.exit(1);
}
