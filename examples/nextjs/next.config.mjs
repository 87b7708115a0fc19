// Tally runs in Node.js on the server, as it is published: Next.js leaves its packages (and
// better-sqlite3, a compiled module) to Node instead of bundling them. The dashboard lives at
// /analytics/ (with its slash, which Next.js would otherwise redirect away).
/** @type {import("next").NextConfig} */
export default {
  serverExternalPackages: ["@tally-analytics/core", "@tally-analytics/server"],
  skipTrailingSlashRedirect: true,
};
