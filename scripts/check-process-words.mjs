// The product speaks to its users: no word of how the project is run (issue numbers, the
// specification's file and sections, the seed it started from, commit hashes in prose) in
// the README, the docs, the packages' sources and READMEs, the examples or the tests.
// `pnpm lint` runs it; it prints each finding as file:line and exits 1 on any.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SCOPE = ["README.md", "docs", "packages/*/src/*", "packages/*/README.md", "examples", "test"];
const TEXT = /\.(?:md|ts|tsx|mts|mjs|js|cjs|json|html|css|txt)$/;

/** Words of the process, anywhere in a file (test names are strings, so strings too). */
const EVERYWHERE = [
  { what: "an issue number", pattern: /\bissues? #?\d+\b/gi },
  { what: "the specification", pattern: /\bSPEC(?:\.md|\s?§)/g },
  { what: "the seed", pattern: /\bthe seed\b|\bseed's\b/gi },
];
/**
 * A commit hash (7 to 40 hex digits, letters and digits both, not part of a longer token
 * such as a UUID): only in prose and comments, where it is not data.
 */
const COMMIT_HASH = { what: "a commit hash", pattern: /(?<![\w-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?![\w-])/g };

/** Markdown without its code (fenced blocks, inline code): the prose, line for line. */
const markdownProse = (text) =>
  text
    .replace(/^( *)(```|~~~)[\s\S]*?^\1\2\s*$/gm, (block) => block.replace(/[^\n]/g, " "))
    .replace(/(`+)[^`\n][\s\S]*?\1/g, (code) => code.replace(/[^\n]/g, " "));

/** Source without its code: each line's comment (after `//`, or a line of a block comment), line for line. */
const sourceComments = (text) =>
  text
    .split("\n")
    .map((line) => {
      if (/^\s*(?:\/\*|\*)/.test(line)) return line;
      const comment = /(?:^|\s)\/\/(.*)$/.exec(line);
      return comment ? comment[1] : "";
    })
    .join("\n");

export function findProcessWords(path, text) {
  const findings = [];
  const scan = (content, { what, pattern }) => {
    for (const match of content.matchAll(pattern)) {
      const line = content.slice(0, match.index).split("\n").length;
      findings.push(`${path}:${line}: ${what}: "${match[0]}"`);
    }
  };
  for (const rule of EVERYWHERE) scan(text, rule);
  if (path.endsWith(".md")) scan(markdownProse(text), COMMIT_HASH);
  else if (!path.endsWith(".json")) scan(sourceComments(text), COMMIT_HASH);
  return findings;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "--", ...SCOPE], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .split("\n")
    .filter((path) => TEXT.test(path));
  const findings = files.flatMap((path) => {
    try {
      return findProcessWords(path, readFileSync(new URL(path, `file://${ROOT}`), "utf8"));
    } catch (error) {
      if (error.code === "ENOENT") return []; // deleted in the work tree, not yet in the index
      throw error;
    }
  });
  if (findings.length > 0) {
    console.error(`Words of how the project is run, in what users read (say it in the product's words):\n${findings.join("\n")}`);
    process.exit(1);
  }
}
