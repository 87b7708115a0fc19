/**
 * A step of a funnel or a journey (docs/statistics.md, "Funnels and journeys"): a page
 * pattern, `page:/blog/*` (`*` stands for any characters, case-sensitive, as page goals),
 * or an event name, `event:Signup` (exact).
 */
export type PathStep = { kind: "page"; pattern: string } | { kind: "event"; name: string };

/** Bounds of a funnel: its steps, their length, its name. */
export const FUNNEL_LIMITS = { minSteps: 2, maxSteps: 8, stepLength: 200, nameLength: 100 } as const;

/** Deepest journey asked. */
export const MAX_JOURNEY_DEPTH = 5;

/** `page:<pattern>` or `event:<name>`, as text, or a path alone (`/pricing`) for a page; null for anything else. */
export function parseStep(text: string): PathStep | null {
  if (text.startsWith("/")) return parseStep(`page:${text}`);
  const colon = text.indexOf(":");
  const kind = text.slice(0, colon);
  const value = text.slice(colon + 1);
  if (colon < 0 || value === "" || value.length > FUNNEL_LIMITS.stepLength || /[\r\n]/.test(value)) return null;
  if (kind === "page") return { kind, pattern: value };
  if (kind === "event") return { kind, name: value };
  return null;
}

export const stepText = (step: PathStep): string => (step.kind === "page" ? `page:${step.pattern}` : `event:${step.name}`);
