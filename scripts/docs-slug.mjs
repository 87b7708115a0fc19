// Heading anchors as GitHub makes them (lower case; punctuation dropped; each space a
// hyphen), so that a link such as `statistics.md#plausibles-stats-api` works on GitHub
// and on the docs site alike. Repeated headings get `-1`, `-2`… from the Markdown renderer.
export function githubSlug(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}
