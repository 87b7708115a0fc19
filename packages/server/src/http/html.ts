/** The `<head>` lines every page Tally serves has after charset and viewport (which `htmlDocument` writes). */
export const PAGE_HEAD: readonly string[] = [
  '<meta name="color-scheme" content="light dark">',
  '<meta name="referrer" content="same-origin">',
  '<link rel="icon" href="data:,">',
];

/** The headers of a server-rendered HTML page that is never cached and never leaks its URL (tokens travel in some). */
export const htmlPageHeaders = (contentSecurityPolicy: string): Record<string, string> => ({
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  "content-security-policy": contentSecurityPolicy,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
});
