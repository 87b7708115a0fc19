import { ValidationError } from "../errors.js";
import { normalizeDomain } from "./domain.js";
import { isValidParamEntry, parseIpRule, splitList } from "./exclusion-lists.js";

/** What a caller may send to create or update a website; form values arrive as strings. */
export interface WebsiteInput {
  domain?: unknown;
  privacy?: unknown;
  password?: unknown;
  email?: unknown;
  exclude_bots?: unknown;
  exclude_params?: unknown;
  exclude_ips?: unknown;
  timezone?: unknown;
  retention_days?: unknown;
}

/** Bounds of `retention_days`: a week to ten years (the longest statistics range). */
export const RETENTION_DAYS = { min: 7, max: 3660, default: 730 } as const;

/** The validated, normalised fields; absent ones were not sent. */
export interface WebsiteFields {
  domain?: string;
  privacy?: 0 | 1 | 2;
  password?: string;
  email?: 0 | 1;
  exclude_bots?: 0 | 1;
  exclude_params?: string;
  exclude_ips?: string;
  timezone?: string;
  retention_days?: number;
}

type Errors = Record<string, string[]>;
const label = (field: string) => field.replace(/_/g, " ");
const isAbsent = (value: unknown) => value === undefined || value === null;

function addError(errors: Errors, field: string, message: string): void {
  (errors[field] ??= []).push(message);
}

function readText(errors: Errors, field: string, value: unknown): string | undefined {
  if (isAbsent(value)) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  addError(errors, field, `The ${label(field)} field must be a string.`);
  return undefined;
}

function readChoice<T extends number>(errors: Errors, field: string, value: unknown, allowed: readonly T[]): T | undefined {
  const text = readText(errors, field, value);
  if (text === undefined) return undefined;
  const choice = allowed.find((option) => String(option) === text.trim());
  if (choice === undefined) addError(errors, field, `The selected ${label(field)} is invalid.`);
  return choice;
}

/**
 * Current IANA names that this runtime's ICU knows by an older alias (it reports
 * `Asia/Calcutta` for `Asia/Kolkata`): the name a user gives is kept as given.
 */
const CURRENT_ZONE_NAMES = [
  "Asia/Kolkata", "Asia/Kathmandu", "Europe/Kyiv", "America/Argentina/Buenos_Aires", "Asia/Ho_Chi_Minh",
  "Asia/Yangon", "Atlantic/Faroe", "America/Nuuk", "Pacific/Chuuk", "Pacific/Pohnpei", "Pacific/Kanton",
  "America/Indiana/Indianapolis", "America/Kentucky/Louisville", "America/Argentina/Catamarca",
  "America/Argentina/Cordoba", "America/Argentina/Jujuy", "America/Argentina/Mendoza", "America/Atikokan",
  "Africa/Asmara",
];

/**
 * The IANA name to store for what the user typed, or null when it is no time zone. A
 * valid name is kept as given, in its proper spelling: ICU's own (`utc` → `UTC`), or
 * the current name for one ICU knows only by an alias (`asia/kolkata` → `Asia/Kolkata`).
 */
export function timeZoneName(input: string): string | null {
  const name = input.trim();
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  if (name === "") return null;
  const lower = name.toLowerCase();
  if (resolved.toLowerCase() === lower) return resolved;
  return CURRENT_ZONE_NAMES.find((zone) => zone.toLowerCase() === lower) ?? name;
}

function readRetention(errors: Errors, value: unknown): number | undefined {
  const text = readText(errors, "retention_days", value);
  if (text === undefined) return undefined;
  const days = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || days < RETENTION_DAYS.min || days > RETENTION_DAYS.max) {
    addError(errors, "retention_days", `The retention days must be a whole number from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}.`);
    return undefined;
  }
  return days;
}

function readIpList(errors: Errors, value: unknown): string | undefined {
  const text = readText(errors, "exclude_ips", value);
  if (text === undefined) return undefined;
  const entries = splitList(text);
  for (const entry of entries) {
    if (!parseIpRule(entry)) addError(errors, "exclude_ips", `The exclude ips entry "${entry}" is not a valid IP address or CIDR.`);
  }
  return entries.join("\n");
}

function readParamList(errors: Errors, value: unknown): string | undefined {
  const text = readText(errors, "exclude_params", value);
  if (text === undefined) return undefined;
  const entries = splitList(text);
  for (const entry of entries) {
    if (!isValidParamEntry(entry)) addError(errors, "exclude_params", `The exclude params entry "${entry}" is not a valid parameter name.`);
  }
  return entries.join("\n");
}

/**
 * Checks every field rule of a website and returns the normalised fields, or throws
 * one ValidationError listing every broken rule. `domain` is only read on create.
 */
export function parseWebsiteInput(input: WebsiteInput, mode: "create" | "update"): WebsiteFields {
  const errors: Errors = {};
  const fields: WebsiteFields = {};

  if (mode === "create") {
    const domainText = readText(errors, "domain", input.domain);
    if (domainText === undefined || domainText.trim() === "") {
      if (!errors.domain) addError(errors, "domain", "The domain field is required.");
    } else {
      const domain = normalizeDomain(domainText);
      if (domain === null) addError(errors, "domain", "The domain must be a valid domain name or IP address.");
      else fields.domain = domain;
    }
  }

  const privacy = readChoice(errors, "privacy", input.privacy, [0, 1, 2] as const);
  if (privacy !== undefined) fields.privacy = privacy;
  const email = readChoice(errors, "email", input.email, [0, 1] as const);
  if (email !== undefined) fields.email = email;
  const excludeBots = readChoice(errors, "exclude_bots", input.exclude_bots, [0, 1] as const);
  if (excludeBots !== undefined) fields.exclude_bots = excludeBots;

  const password = readText(errors, "password", input.password);
  if (password !== undefined && password !== "") {
    if (password.length > 128) addError(errors, "password", "The password must be between 1 and 128 characters.");
    else fields.password = password;
  }

  const excludeIps = readIpList(errors, input.exclude_ips);
  if (excludeIps !== undefined) fields.exclude_ips = excludeIps;
  const excludeParams = readParamList(errors, input.exclude_params);
  if (excludeParams !== undefined) fields.exclude_params = excludeParams;

  const timezone = readText(errors, "timezone", input.timezone);
  if (timezone !== undefined) {
    const name = timeZoneName(timezone);
    if (name !== null) fields.timezone = name;
    else addError(errors, "timezone", "The timezone must be a valid IANA time zone name.");
  }
  const retention = readRetention(errors, input.retention_days);
  if (retention !== undefined) fields.retention_days = retention;

  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return fields;
}
