// Reads the code of the README and the docs as the tests run it: sections, fenced blocks,
// and shell steps with the output shown for them, compared with `…` standing for anything.
import { readFileSync } from "node:fs";

export const README_PATH = new URL("../../README.md", import.meta.url);

export function readme(): string {
  return readFileSync(README_PATH, "utf8");
}

/** A page of the docs, by its path under `docs/` (`guide/getting-started.md`). */
export function docPage(path: string): string {
  return readFileSync(new URL(`../../docs/${path}`, import.meta.url), "utf8");
}

/** The text of one `## title` section, up to the next `## ` heading. */
export function section(title: string, text = readme()): string {
  const start = text.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no "## ${title}" section`);
  const next = text.indexOf("\n## ", start + 1);
  return text.slice(start, next === -1 ? undefined : next);
}

/** The fenced code blocks of a text (indented ones too), with their language. */
export function codeBlocks(text: string): { lang: string; body: string }[] {
  const blocks: { lang: string; body: string }[] = [];
  const fence = /^( *)```(\w*)\n([\s\S]*?)^\1```$/gm;
  for (const match of text.matchAll(fence)) {
    const indent = match[1]!.length;
    blocks.push({
      lang: match[2]!,
      body: match[3]!
        .split("\n")
        .map((line) => line.slice(indent))
        .join("\n"),
    });
  }
  return blocks;
}

/** A command of a shell block (continuation lines joined) and the output shown right below it, if any. */
export interface ShellStep {
  command: string;
  /** The `# ` lines right after the command, joined (a long output wraps over several). */
  shown: string | null;
  /** The same lines one by one (an output of several lines). */
  shownLines: string[];
}

/**
 * The steps of a shell block. Comment lines right after a command are its output;
 * comment lines after a blank line describe the next command and are skipped.
 */
export function shellSteps(body: string): ShellStep[] {
  const steps: ShellStep[] = [];
  const lines = body.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      while (i + 1 < lines.length && lines[i + 1]!.startsWith("#")) i++;
      continue;
    }
    let command = line;
    while (command.endsWith("\\") && i + 1 < lines.length) command = `${command.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    const shown: string[] = [];
    while (i + 1 < lines.length && lines[i + 1]!.startsWith("#")) shown.push(lines[++i]!.replace(/^#\s*/, ""));
    steps.push({ command, shown: shown.length > 0 ? shown.join("") : null, shownLines: shown });
  }
  return steps;
}

/** Whether an output is what the text shows, `…` standing for any text. */
export function matchesShown(actual: string, shown: string): boolean {
  const pattern = shown
    .split("…")
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
    .join("[\\s\\S]*?");
  return new RegExp(`^${pattern}$`).test(actual.trim());
}
