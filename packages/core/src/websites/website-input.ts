import * as z from "zod";
import { validate } from "../shared/validation.js";
import { normalizeDomain } from "./domain.js";
import { isValidParamEntry, parseIpRule, splitList } from "../shared/exclusion-lists.js";
import { UTC } from "../model/local-time.js";

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
  page_names?: unknown;
  aliases?: unknown;
  include_subdomains?: unknown;
}

/**
 * How a website's pages are named: `path`, the URL's path and kept query; `route`, the
 * route template the app's server answered with (`/orders/:id`, the middleware), else the
 * path with id-like segments as `:id` (docs/statistics.md, "Page").
 */
export const PAGE_NAMES = ["path", "route"] as const;
export type PageNames = (typeof PAGE_NAMES)[number];

/** Bounds of `retention_days`: a week to ten years (the longest statistics range). */
export const RETENTION_DAYS = { min: 7, max: 3660, default: 730 } as const;

/**
 * Current IANA names that this runtime's ICU knows by an older alias (it reports
 * `Asia/Calcutta` for `Asia/Kolkata`): the name a user gives is kept as given.
 */
const CURRENT_ZONE_NAMES = [
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Europe/Kyiv",
  "America/Argentina/Buenos_Aires",
  "Asia/Ho_Chi_Minh",
  "Asia/Yangon",
  "Atlantic/Faroe",
  "America/Nuuk",
  "Pacific/Chuuk",
  "Pacific/Pohnpei",
  "Pacific/Kanton",
  "America/Indiana/Indianapolis",
  "America/Kentucky/Louisville",
  "America/Argentina/Catamarca",
  "America/Argentina/Cordoba",
  "America/Argentina/Jujuy",
  "America/Argentina/Mendoza",
  "America/Atikokan",
  "Africa/Asmara",
];

/**
 * The IANA name to store for what the user typed, or null when it is no time zone. A
 * valid name is kept as given, in its proper spelling: ICU's own (`utc` → `UTC`), or
 * the current name for one ICU knows only by an alias (`asia/kolkata` → `Asia/Kolkata`).
 */
export function timeZoneName(input: string): string | null {
  const name = input.trim();
  // The default zone, spelled as ICU spells it, without loading ICU's date data for it.
  if (name.toUpperCase() === UTC) return UTC;
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

const label = (field: string) => field.replace(/_/g, " ");
const mustBeString = (field: string) => `The ${label(field)} field must be a string.`;
const isText = (value: unknown) => typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
/** Form values arrive as strings, JSON may send numbers: a finite number counts as its text. */
const numberAsText = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? String(value) : value);
const trimmed = (value: unknown) => (typeof value === "string" ? value.trim() : value);

/** Free text (a string, or a finite number taken as its text). */
const text = (field: string) =>
  z.preprocess(
    numberAsText,
    z.string({ error: (issue) => (issue.input === undefined ? `The ${label(field)} field is required.` : mustBeString(field)) }),
  );

/** One of a few numbers, sent as a number (JSON) or its text (forms); surrounding spaces are ignored. */
function choice<const T extends readonly [number, ...number[]]>(field: string, values: T) {
  const invalid = (issue: { input?: unknown }) => (isText(issue.input) ? `The selected ${label(field)} is invalid.` : mustBeString(field));
  const texts = values.map(String) as [string, ...string[]];
  return z
    .preprocess(trimmed, z.union([z.literal(values), z.enum(texts)], { error: invalid }))
    .transform((value) => Number(value) as T[number]);
}

/** A list of entries, one a line (commas accepted); every invalid entry is named. */
function entryList(field: string, isValid: (entry: string) => boolean, describe: (entry: string) => string) {
  return text(field).transform((value, context) => {
    const entries = splitList(value);
    for (const entry of entries) if (!isValid(entry)) context.addIssue({ code: "custom", message: describe(entry), input: entry });
    return entries.join("\n");
  });
}

const RETENTION_MESSAGE = `The retention days must be a whole number from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}.`;

/** At most this many aliases: what other tools' trackers name the website by (Umami's website id). */
export const MAX_ALIASES = 20;
/** An alias is looked up as a hit's website is (a UUID is one): written as a domain is. */
const isAlias = (entry: string) => normalizeDomain(entry) === entry.toLowerCase();

/** The fields both create and update accept; each is optional (absent = unchanged, or the default). */
const settingFields = {
  privacy: choice("privacy", [0, 1, 2])
    .optional()
    .meta({ description: "Who can see the share page: 0 public, 1 private (default), 2 password.", example: 1 }),
  password: text("password")
    .pipe(z.string().max(128, "The password must be between 1 and 128 characters."))
    .transform((value) => (value === "" ? undefined : value))
    .optional()
    .meta({
      description: "The share page's password (1 to 128 characters); required when privacy is 2. Stored as a hash, never returned.",
    }),
  email: choice("email", [0, 1]).optional().meta({
    description: "E-mail reports: 1 sends this website in its account's periodic report (to the account's `email`), 0 does not (default).",
  }),
  exclude_bots: choice("exclude_bots", [0, 1]).optional().meta({ description: "Drop hits from bots: 1 yes (default), 0 no." }),
  include_subdomains: choice("include_subdomains", [0, 1]).optional().meta({
    description:
      "Count the website's subdomains: 1 counts hits on any subdomain of `domain` (`blog.example.com`) for it, unless that subdomain is a website of its own, and the `hostname` statistic tells the hosts apart; 0 (default) counts only `domain` and `www.domain`.",
  }),
  exclude_params: entryList(
    "exclude_params",
    isValidParamEntry,
    (entry) => `The exclude params entry "${entry}" is not a valid parameter name.`,
  )
    .optional()
    .meta({
      description:
        "Query parameters to strip from pages before counting, one a line (commas accepted); a line `&` strips every parameter, except those listed as `!name` (`&` and `!q` keep only `q`). Tracking parameters (`utm_*`, click ids) are always stripped.",
      example: "fbclid\ngclid",
    }),
  exclude_ips: entryList(
    "exclude_ips",
    (entry) => parseIpRule(entry) !== null,
    (entry) => `The exclude ips entry "${entry}" is not a valid IP address or CIDR.`,
  )
    .optional()
    .meta({
      description: "IPv4/IPv6 addresses or CIDR ranges whose hits are dropped, one a line (commas accepted).",
      example: "10.0.0.0/8\n2001:db8::1",
    }),
  timezone: text("timezone")
    .transform((value, context) => {
      const name = timeZoneName(value);
      if (name === null) context.addIssue({ code: "custom", message: "The timezone must be a valid IANA time zone name.", input: value });
      return name ?? value;
    })
    .optional()
    .meta({ description: "IANA time zone of the website's days and hours (default UTC).", example: "Europe/Paris" }),
  retention_days: z
    .preprocess(
      trimmed,
      z.union(
        [
          z.int(RETENTION_MESSAGE).min(RETENTION_DAYS.min, RETENTION_MESSAGE).max(RETENTION_DAYS.max, RETENTION_MESSAGE),
          z.string().regex(/^\d+$/, RETENTION_MESSAGE),
        ],
        { error: (issue) => (isText(issue.input) ? RETENTION_MESSAGE : mustBeString("retention_days")) },
      ),
    )
    .transform(Number)
    .refine((days) => days >= RETENTION_DAYS.min && days <= RETENTION_DAYS.max, RETENTION_MESSAGE)
    .optional()
    .meta({
      description: `Days the visits and hits behind filtered statistics are kept (${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, default ${RETENTION_DAYS.default}).`,
      example: 365,
    }),
  page_names: z
    .preprocess(
      trimmed,
      z.enum(PAGE_NAMES, { error: (issue) => (typeof issue.input === "string" ? PAGE_NAMES_MESSAGE : mustBeString("page_names")) }),
    )
    .optional()
    .meta({
      description:
        "How pages are named: `path` (default), the URL's path and kept query; `route`, the route template the app's server answered with (`/orders/:id`, with Tally's middleware), else the path with id-like segments as `:id` and no query: ids never reach the database.",
      example: "route",
    }),
  aliases: entryList("aliases", isAlias, (entry) => `The alias "${entry}" must be an id or host name: letters, digits, dashes and dots.`)
    .transform((value) => value.toLowerCase())
    .refine((value) => value.split("\n").length <= MAX_ALIASES, `At most ${MAX_ALIASES} aliases are allowed.`)
    .optional()
    .meta({
      description:
        "Other names hits may name this website by, one a line (commas accepted): Umami's website id, so that Umami's `/api/send` bodies without a `hostname` are counted here. Free across all accounts, and never another website's domain.",
      example: "b59e9c65-ae32-47f1-8400-119fcf4861c4",
    }),
};

const PAGE_NAMES_MESSAGE = `The page names must be one of: ${PAGE_NAMES.join(", ")}.`;

const domainField = z
  .preprocess(
    numberAsText,
    // One preprocess around the whole field: nested pipes would document `domain` as optional.
    z
      .string({ error: (issue) => (issue.input === undefined ? "The domain field is required." : mustBeString("domain")) })
      .transform((value, context) => {
        const domain = value.trim() === "" ? null : normalizeDomain(value);
        if (domain === null) {
          const message = value.trim() === "" ? "The domain field is required." : "The domain must be a valid domain name or IP address.";
          context.addIssue({ code: "custom", message, input: value });
        }
        return domain ?? value;
      }),
  )
  .meta({
    description:
      "The website's host name or IP address; normalised (lower case, scheme, path, port and `www.` dropped, IDN to punycode). Unique across all accounts.",
    example: "example.com",
  });

/** A null field is an absent one. */
const withoutNulls = (input: unknown) =>
  input !== null && typeof input === "object" && !Array.isArray(input)
    ? Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null))
    : input;

/** POST /websites: `domain` and any setting (form fields or JSON). */
export const websiteCreateSchema = z.preprocess(
  withoutNulls,
  z.object({ domain: domainField, ...settingFields }).meta({ id: "WebsiteCreate" }),
);

/** PUT /websites/{id}: any setting; `domain` cannot change and is ignored. */
export const websiteUpdateSchema = z.preprocess(withoutNulls, z.object(settingFields).meta({ id: "WebsiteUpdate" }));

/** The validated, normalised fields; absent ones were not sent. */
export type WebsiteFields = Partial<z.output<typeof websiteCreateSchema>>;

/**
 * Checks every field rule of a website and returns the normalised fields, or throws
 * one ValidationError listing every broken rule. `domain` is only read on create.
 */
export function parseWebsiteInput(input: WebsiteInput, mode: "create" | "update"): WebsiteFields {
  return validate<WebsiteFields>(mode === "create" ? websiteCreateSchema : websiteUpdateSchema, input);
}
