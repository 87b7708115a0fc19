import * as z from "zod";
import { choice, validate } from "../shared/validation.js";

/** How often an account's e-mail report covers: the previous full week (Monday–Sunday) or month. */
export const REPORT_PERIODS = ["week", "month"] as const;
export type ReportPeriod = (typeof REPORT_PERIODS)[number];

/** The fields of an account its owner may change, as a form or JSON body gives them. */
export interface AccountInput {
  /** What the account is called (the dashboard's header, reports). */
  name?: unknown;
  /** An e-mail address; `""` or null removes it (no more reports). */
  email?: unknown;
  report_period?: unknown;
}

/** A plain address (`name@example.com`): no display name, no line breaks, at most 254 characters (RFC 5321). */
export const emailAddress = (field: string) =>
  z
    .string({ error: `The ${field} must be a valid email address.` })
    .max(254, `The ${field} may not be longer than 254 characters.`)
    .pipe(z.email({ error: `The ${field} must be a valid email address.` }));

/** `""` and null both remove the address. */
const email = z.preprocess((value) => (value === "" ? null : value), emailAddress("email").nullable());

/** `PUT /api/v1/account`'s body: every field optional, checked by core (the server validates with it too). */
export const accountUpdateSchema = z
  .object({
    name: z
      .string({ error: "The name must be text." })
      .trim()
      .min(1, "The name may not be empty.")
      .max(100, "The name may not be longer than 100 characters.")
      .optional()
      .meta({ description: "What the account is called.", example: "Acme" }),
    email: email.optional().meta({ description: "Where reports go; empty or null for none.", example: "owner@example.com" }),
    report_period: choice("report_period", REPORT_PERIODS).optional().meta({ description: "`week` (Monday–Sunday) or `month`." }),
  })
  .meta({ id: "AccountUpdate" });

export type AccountChanges = z.output<typeof accountUpdateSchema>;

export function parseAccountInput(input: AccountInput): AccountChanges {
  return validate(accountUpdateSchema, input);
}

export const isReportPeriod = (value: string): value is ReportPeriod => (REPORT_PERIODS as readonly string[]).includes(value);

/** One address given elsewhere (the CLI's `--to`), checked like the account's. */
export function parseEmailAddress(value: unknown, field: string): string {
  return validate(z.object({ [field]: emailAddress(field) }), { [field]: value })[field] as string;
}
