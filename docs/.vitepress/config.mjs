// The documentation site: VitePress over the Markdown pages of docs/, which read the same
// on GitHub. `pnpm docs:dev` serves it while editing; `pnpm docs:build` builds it and
// checks every link (scripts/check-docs-links.mjs).
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitepress";
import { githubSlug } from "../../scripts/docs-slug.mjs";

const DOCS = fileURLToPath(new URL("..", import.meta.url));

/**
 * The pages in the order of the sidebar. A page appears once its file exists, so a new
 * page of this list needs no change here.
 */
const LAYOUT = [
  {
    text: "Guide",
    items: [
      ["Getting started", "guide/getting-started"],
      ["Express", "guide/express"],
      ["Fastify", "guide/fastify"],
      ["Hono", "guide/hono"],
      ["Next.js", "guide/nextjs"],
      ["NestJS", "guide/nestjs"],
      ["Koa", "guide/koa"],
      ["Fetch handlers", "guide/fetch"],
      ["node:http", "guide/node-http"],
      ["Inside your app", "guide/inside-your-app"],
    ],
  },
  {
    text: "Using Tally",
    items: [
      ["Dashboard", "dashboard"],
      ["The tracker", "tracker"],
      ["Teams and sign-in", "teams"],
      ["Email reports", "reports"],
      ["Alerts", "alerts"],
      ["Revenue", "revenue"],
      ["MCP server", "mcp"],
      ["Moving to and from Tally", "moving"],
    ],
  },
  {
    text: "Reference",
    items: [
      ["Configuration", "configuration"],
      ["The HTTP API", "api"],
      ["What Tally counts", "statistics"],
      ["PostgreSQL", "postgresql"],
      ["ClickHouse", "clickhouse"],
      ["Privacy and geography", "privacy"],
    ],
  },
  {
    text: "How it holds up",
    items: [
      ["Reliability", "reliability"],
      ["Performance", "performance"],
      ["Architecture", "architecture"],
    ],
  },
];

const sidebar = LAYOUT.map(({ text, items }) => ({
  text,
  items: items.filter(([, page]) => existsSync(join(DOCS, `${page}.md`))).map(([label, page]) => ({ text: label, link: `/${page}` })),
})).filter((group) => group.items.length > 0);

export default defineConfig({
  title: "Tally",
  description: "Self-hostable, cookieless web analytics that lives inside your Node app.",
  cleanUrls: false,
  lastUpdated: false,
  markdown: { anchor: { slugify: githubSlug } },
  themeConfig: {
    nav: [
      { text: "Getting started", link: "/guide/getting-started" },
      { text: "API", link: "/api" },
    ],
    sidebar,
    outline: { level: [2, 3] },
    search: { provider: "local" },
  },
  // Pages link to the screenshots as files (as on GitHub): the site serves them beside the pages.
  buildEnd: ({ outDir }) => cpSync(join(DOCS, "screenshots"), join(outDir, "screenshots"), { recursive: true }),
});
