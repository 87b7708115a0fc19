/** What a person may do in an account: `owner` ⊃ `admin` ⊃ `viewer`. */
export const ROLES = ["owner", "admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];

/** What an API key may do: `read` changes nothing, whatever its user's role. */
export const KEY_SCOPES = ["read", "write"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/**
 * Who a request speaks for. `websites` limits it to some of the account's websites
 * (absent: all); `userId` is absent for an account-wide key (those made before users,
 * or by `tally keys create`) and for the host's own `authenticate` hook.
 */
export interface Access {
  accountId: number;
  role: Role;
  websites?: readonly number[] | null;
  userId?: number;
  /** Set for API keys; a session or the host's hook may do what its role allows. */
  scope?: KeyScope;
}

/** May change websites and settings (admins and owners, not through a read key). */
export const canWrite = (access: Access): boolean => access.role !== "viewer" && access.scope !== "read";

/** May manage members, keys of others and account settings. */
export const canManageAccount = (access: Access): boolean => access.role === "owner" && access.scope !== "read";

export const canSeeWebsite = (access: Access, websiteId: number): boolean => access.websites == null || access.websites.includes(websiteId);

/** `"1,4"` ⇄ `[1, 4]`; null stands for every website of the account. */
export const parseWebsiteList = (text: string | null): number[] | null =>
  text === null
    ? null
    : text
        .split(",")
        .filter(Boolean)
        .map(Number)
        .filter((id) => Number.isSafeInteger(id) && id > 0);
export const formatWebsiteList = (ids: readonly number[] | null | undefined): string | null =>
  ids == null ? null : [...new Set(ids)].sort((a, b) => a - b).join(",");
