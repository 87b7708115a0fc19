import { canManageAccount, canSeeWebsite, canWrite, NotFoundError, type Access } from "@tally-analytics/core";
import type { Authenticated } from "./auth.js";
import { HttpError } from "./errors.js";
import type { AccountRoute, Permission } from "./route.js";

export const FORBIDDEN = {
  readOnly: "This key or user can only read statistics: changing anything needs an admin or owner (and a write key).",
  ownerOnly: "Only an owner of the account can do this (with a session or a write key).",
  userOnly: "This needs a user: sign in, or use an API key that belongs to a user.",
  readKey: "A read key cannot change anything.",
  limited: "A user limited to some websites cannot do this.",
  twoFactorFirst: "This account requires two-factor sign-in: set it up first.",
} as const;

export const permissionOf = (route: AccountRoute): Permission => route.permission ?? (route.method === "GET" ? "read" : "write");

/** 403 with a message saying what is missing, when the caller may not use this route. */
export function checkPermission(route: AccountRoute, { access, via, confined }: Authenticated): void {
  const permission = permissionOf(route);
  // Confined until two-factor sign-in is set up: no credential of theirs does more than set it up (a session) or ask who it is.
  if (confined && permission !== "anyone" && !(permission === "two-factor" && via === "session"))
    throw new HttpError(403, FORBIDDEN.twoFactorFirst);
  if (permission === "write" && !canWrite(access)) throw new HttpError(403, FORBIDDEN.readOnly);
  if (permission === "owner" && !canManageAccount(access)) throw new HttpError(403, FORBIDDEN.ownerOnly);
  if (permission === "self" || permission === "two-factor") {
    if (access.userId === undefined) throw new HttpError(403, FORBIDDEN.userOnly);
    if (route.method !== "GET" && access.scope === "read") throw new HttpError(403, FORBIDDEN.readKey);
  }
}

/** A website id the caller may see; others are missing to them (404), like another account's. */
export function visibleWebsite(access: Access, id: number): number {
  if (!canSeeWebsite(access, id)) throw new NotFoundError();
  return id;
}

/** Refuses what only unrestricted members may do (create a website: it would not be in their list). */
export function requireAllWebsites(access: Access): void {
  if (access.websites != null) throw new HttpError(403, FORBIDDEN.limited);
}
