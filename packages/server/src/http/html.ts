/** The `<head>` lines every page Tally serves has after charset and viewport (which `htmlDocument` writes). */
export const PAGE_HEAD: readonly string[] = [
  '<meta name="color-scheme" content="light dark">',
  '<meta name="referrer" content="same-origin">',
  '<link rel="icon" href="data:,">',
];
