// Checks the dashboard's browser tests run on a page: axe-core's serious and critical
// problems, and the contrast of text against the opaque background behind it (WCAG).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export /** WCAG's contrast ratio of an element's text against the first opaque background behind it. */
const contrastOf = (page: Page, selector: string) =>
  page.$eval(selector, (element) => {
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) =>
      [r, g, b]
        .map((value) => value / 255)
        .map((value) => (value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4))
        .reduce((sum, value, i) => sum + value * [0.2126, 0.7152, 0.0722][i]!, 0);
    let background = "rgba(0, 0, 0, 0)";
    for (let node: Element | null = element; node; node = node.parentElement) {
      background = getComputedStyle(node).backgroundColor;
      if ((rgb(background)[3] ?? 1) > 0.5) break;
    }
    const [a, b] = [luminance(rgb(getComputedStyle(element).color)), luminance(rgb(background))];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });

export /** Every button and link in view: the ratio of its text to the opaque background behind it (WCAG). */
const lowContrast = (page: Page) =>
  page.evaluate(() => {
    const rgb = (color: string) => (color.match(/[\d.]+/g) ?? []).map(Number);
    const luminance = ([r = 0, g = 0, b = 0]: number[]) =>
      [r, g, b]
        .map((value) => value / 255)
        .map((value) => (value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4))
        .reduce((sum, value, i) => sum + value * [0.2126, 0.7152, 0.0722][i]!, 0);
    const problems: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>("button, a[href], summary, select")) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || !element.textContent?.trim() || element.closest("[hidden]")) continue;
      const style = getComputedStyle(element);
      if (style.visibility === "hidden" || Number(style.opacity) < 0.5 || (element as HTMLButtonElement).disabled) continue;
      let background = "rgb(255, 255, 255)";
      for (let node: Element | null = element; node; node = node.parentElement) {
        const color = getComputedStyle(node).backgroundColor;
        if ((rgb(color)[3] ?? 1) > 0.5) {
          background = color;
          break;
        }
      }
      const [a, b] = [luminance(rgb(style.color)), luminance(rgb(background))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5)
        problems.push(
          `${element.tagName.toLowerCase()}.${element.className} "${element.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}`,
        );
    }
    return problems;
  });

/** axe-core's serious and critical problems on the page as it is now. */
export async function axeProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
      }
    ).axe;
    return (await axe.run(document)).violations;
  });
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}
