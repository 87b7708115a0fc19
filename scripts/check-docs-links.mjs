// Checks every internal link of the built docs site (docs/.vitepress/dist) and of the
// Markdown the site is built from and GitHub shows (README.md, docs/**/*.md): each must
// name a page or file that is there and, with a `#…`, an anchor that page has. Also checks
// that every `<!--@include: file#region-->` names a region the file has (VitePress would
// include the whole file otherwise). Exits 1 on anything broken; `pnpm docs:build` runs it.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { githubSlug } from "./docs-slug.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DOCS = join(ROOT, "docs");
const DIST = join(DOCS, ".vitepress", "dist");

function filesUnder(directory, keep) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith(".") || entry.name === "node_modules" ? [] : filesUnder(path, keep);
    return keep(entry.name) ? [path] : [];
  });
}

const decodeEntities = (text) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[name]);

const cache = new Map();
function remembered(key, compute) {
  if (!cache.has(key)) cache.set(key, compute());
  return cache.get(key);
}

/** The ids of a built page. */
const htmlIds = (file) =>
  remembered(file, () => new Set([...readFileSync(file, "utf8").matchAll(/\sid="([^"]*)"/g)].map((match) => decodeEntities(match[1]))));

/** The prose of a Markdown text: fenced code, inline code and HTML comments blanked out. */
const prose = (text) =>
  text
    .replace(/^( *)(```|~~~)[\s\S]*?^\1\2\s*$/gm, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/(`+)[\s\S]*?\1/g, "``");

/** The heading anchors of a Markdown file, as GitHub and the site make them. */
const markdownAnchors = (file) =>
  remembered(file, () => {
    const seen = new Map();
    const anchors = new Set();
    for (const [, heading] of prose(readFileSync(file, "utf8")).matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
      const base = githubSlug(heading.replace(/`/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"));
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    return anchors;
  });

/** The anchors a Markdown file's page has: a docs page's built ids (headings and HTML ids), else its headings. */
function anchorsOf(file) {
  const page = relative(DOCS, file);
  if (!page.startsWith("..") && existsSync(DIST)) {
    const built = join(DIST, page.replace(/\.md$/, ".html"));
    if (existsSync(built)) return htmlIds(built);
  }
  return markdownAnchors(file);
}

const broken = [];
let checked = 0;
const isExternal = (target) => /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(target);

function checkTarget(where, target, resolvePath) {
  checked++;
  const hashAt = target.indexOf("#");
  const path = hashAt === -1 ? target : target.slice(0, hashAt);
  const anchor = hashAt === -1 ? "" : decodeURIComponent(target.slice(hashAt + 1));
  const file = resolvePath(decodeURIComponent(path));
  if (file === null || !existsSync(file)) return broken.push(`${where}: ${target} (no such page or file)`);
  if (!anchor) return;
  const anchors = file.endsWith(".html") ? htmlIds(file) : file.endsWith(".md") ? anchorsOf(file) : new Set();
  if (!anchors.has(anchor)) broken.push(`${where}: ${target} (no anchor "${anchor}" there)`);
}

// The built site: every <a href> that stays on the site.
for (const page of filesUnder(DIST, (name) => name.endsWith(".html"))) {
  const url = `/${relative(DIST, page).split("\\").join("/")}`;
  for (const [, raw] of readFileSync(page, "utf8").matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
    const href = decodeEntities(raw);
    if (isExternal(href)) continue;
    checkTarget(`site ${url}`, href, (path) => {
      const target = new URL(path || url, `http://site${url}`).pathname;
      const file = join(DIST, decodeURIComponent(target));
      if (target.endsWith("/")) return join(file, "index.html");
      return extname(target) === "" ? null : file;
    });
  }
}

// The Markdown sources: links and images, and the regions they include.
const sources = [join(ROOT, "README.md"), ...filesUnder(DOCS, (name) => name.endsWith(".md"))];
for (const source of sources) {
  const text = readFileSync(source, "utf8");
  const where = relative(ROOT, source);
  for (const [, target] of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    if (isExternal(target)) continue;
    checkTarget(where, target, (path) => (path === "" ? source : resolve(dirname(source), path)));
  }
  for (const [, path, region] of text.matchAll(/<!--\s*@include:\s*([^#\s]+)#([\w-]+)\s*-->/g)) {
    checked++;
    const included = resolve(dirname(source), path);
    const lines = existsSync(included) && statSync(included).isFile() ? readFileSync(included, "utf8").split("\n") : [];
    const has = (marker) => lines.some((line) => line.trim() === `<!-- #${marker} ${region} -->`);
    if (!has("region") || !has("endregion")) broken.push(`${where}: @include ${path}#${region} (no such region there)`);
  }
}

if (!existsSync(DIST)) broken.push(`${relative(ROOT, DIST)} is missing: build the site first (pnpm docs:build)`);
if (broken.length > 0) {
  console.error(
    `${broken.length} broken link${broken.length === 1 ? "" : "s"} of ${checked}:\n${broken.map((line) => `  ${line}`).join("\n")}`,
  );
  process.exit(1);
}
console.log(`docs: ${checked} links checked, 0 broken`);
