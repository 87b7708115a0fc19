import { isRole, NotFoundError, type Role, type Tally, type UserRow } from "@tally-analytics/core/internal";
import { UsageError } from "./command.js";

export function roleFrom(text: string | undefined, fallback: Role): Role {
  if (text === undefined) return fallback;
  if (!isRole(text)) throw new UsageError(`--role must be owner, admin or viewer, got "${text}"`);
  return text;
}

/** `--websites 1,4` (ids), or `all`. */
export function websitesFrom(text: string | undefined): number[] | null | undefined {
  if (text === undefined) return undefined;
  if (text === "all" || text === "") return null;
  const ids = text.split(",").map((part) => part.trim());
  if (!ids.every((id) => /^\d+$/.test(id) && Number(id) > 0))
    throw new UsageError(`--websites must be website ids separated by commas, or all; got "${text}"`);
  return ids.map(Number);
}

/** The `--account` option of commands that name a person by e-mail (one address may belong to several accounts). */
export const ACCOUNT_OF_USER = {
  type: "string",
  value: "ID",
  description: "the account, when the address belongs to users of several",
} as const;

/** The user with this e-mail: of `--account`, or of the one account that has the address. */
export async function findUser(tally: Tally, email: string, accountText?: string): Promise<UserRow> {
  const rows = await tally.team.users.listByEmail(email);
  const chosen = accountText === undefined ? rows : rows.filter((row) => String(row.account_id) === accountText.trim());
  if (chosen.length === 0)
    throw new NotFoundError(`No user with the address ${email}${accountText === undefined ? "" : ` in account ${accountText}`}.`);
  if (chosen.length > 1)
    throw new UsageError(
      `${email} belongs to users of accounts ${chosen.map((row) => row.account_id).join(", ")}: say which with --account ID`,
    );
  return chosen[0]!;
}

/** The first line of standard input (a password piped in, never typed on the command line where `ps` shows it). */
export async function firstLineOfStdin(): Promise<string> {
  let text = "";
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/, 1)[0] ?? "";
}
