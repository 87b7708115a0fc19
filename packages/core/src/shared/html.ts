/** Text made safe inside HTML content and quoted attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

export interface HtmlDocument {
  /** Plain text: escaped here. */
  title: string;
  /** Further lines of the head, already HTML (meta, link, script, style). */
  head?: readonly string[];
  /** The body's content, already HTML. */
  body: string;
  /** Attributes of `<body>`, already HTML, with their leading space. */
  bodyAttributes?: string;
  /** The page's language (`<html lang>`). @default "en" */
  lang?: string;
}

/** A whole HTML page, English, UTF-8, sized for phones: the dashboard shell, the unsubscribe page, the report e-mail. */
export function htmlDocument({ title, head = [], body, bodyAttributes = "", lang = "en" }: HtmlDocument): string {
  return [
    "<!doctype html>",
    `<html lang="${escapeHtml(lang)}">`,
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    ...head,
    `<title>${escapeHtml(title)}</title>`,
    "</head>",
    `<body${bodyAttributes}>`,
    body,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
