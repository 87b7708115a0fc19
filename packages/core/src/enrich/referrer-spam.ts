import { readFileSync } from "node:fs";

/**
 * Referrer spam (docs/statistics.md, "A hit"): `lists/referrer-spam.txt`, Matomo's
 * maintained list, refreshed by scripts/refresh-referrer-spam.mjs.
 */
let spammers: ReadonlySet<string> | null = null;

function spamList(): ReadonlySet<string> {
  spammers ??= new Set(readFileSync(new URL("../../lists/referrer-spam.txt", import.meta.url), "utf8").split("\n"));
  return spammers;
}

/** Whether a referring host (`www.` stripped) or one of its parent domains is on the list. */
export function isReferrerSpam(host: string): boolean {
  if (host === "") return false;
  const list = spamList();
  for (let domain = host; domain.includes("."); domain = domain.slice(domain.indexOf(".") + 1)) if (list.has(domain)) return true;
  return false;
}
