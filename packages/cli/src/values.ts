import { NotFoundError, tallyInternals, type Account, type Tally, type Website } from "@tally-analytics/core/internal";
import { UsageError } from "./command.js";

/** A positive whole number (an id) given as `label`: `--account`, `ID`. */
export function idFrom(label: string, text: string): number {
  const id = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(id) || id < 1)
    throw new UsageError(`${label} must be a positive whole number (an id), got "${text}"`);
  return id;
}

/** A value that may not be empty (`--name ""`). */
export function nonEmpty(label: string, text: string): string {
  if (text.trim() === "") throw new UsageError(`${label} may not be empty`);
  return text;
}

export async function findAccount(tally: Tally, id: number): Promise<Account> {
  try {
    return await tally.accounts.get(id);
  } catch (error) {
    throw error instanceof NotFoundError ? new NotFoundError(`No account ${id}.`) : error;
  }
}

/**
 * The account a command acts for: `--account`, or the only one there is (a new
 * install has exactly one); with several, --account is needed.
 */
export async function accountFor(tally: Tally, accountText: string | undefined): Promise<Account> {
  if (accountText !== undefined) return findAccount(tally, idFrom("--account", accountText));
  const accounts = await tally.accounts.list();
  if (accounts.length === 1) return accounts[0]!;
  throw new UsageError(
    accounts.length === 0
      ? "there is no account yet: create one with tally keys create"
      : `there are ${accounts.length} accounts: say which with --account ID`,
  );
}

/** A website by id, whichever account owns it (the CLI manages every account). */
export async function findWebsite(tally: Tally, id: number): Promise<{ accountId: number; website: Website }> {
  const row = await tallyInternals(tally).websites.findById(id);
  if (!row) throw new NotFoundError(`No website ${id}.`);
  const accountId = Number(row.account_id);
  return { accountId, website: await tally.websites.get(accountId, id) };
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart. */
export function printTable(print: (line: string) => void, table: readonly (readonly string[])[]): void {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table)
    print(
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    );
}
