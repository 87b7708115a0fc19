/**
 * `DEBUG=tally` (or `tally:*`, `*`, a list with either): one line on standard error for each
 * thing a developer setting Tally up would otherwise not see (a dropped hit and why). Read at
 * each call, so a test or a REPL can turn it on.
 */
export function debugLog(message: string): void {
  const names = (process.env.DEBUG ?? "").split(/[\s,]+/);
  if (names.some((name) => name === "tally" || name === "tally:*" || name === "*")) console.error(`tally: ${message}`);
}
