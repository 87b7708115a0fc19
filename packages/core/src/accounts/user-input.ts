import * as z from "zod";
import { choice, validate } from "../shared/validation.js";
import { KEY_SCOPES, ROLES } from "./access.js";

/** Length rule shared by every form that sets a password. */
export const PASSWORD_RULE = { min: 10, max: 128 } as const;

const emailField = z
  .string({ error: "The email must be a valid email address." })
  .trim()
  .max(254, "The email may not be longer than 254 characters.")
  .pipe(z.email({ error: "The email must be a valid email address." }))
  .transform((email) => email.toLowerCase())
  .meta({ description: "The person's e-mail address (what they sign in with).", example: "ada@example.com" });

export const passwordField = z
  .string({ error: "The password field is required." })
  .min(PASSWORD_RULE.min, `The password must be at least ${PASSWORD_RULE.min} characters.`)
  .max(PASSWORD_RULE.max, `The password may not be longer than ${PASSWORD_RULE.max} characters.`)
  .meta({ description: `${PASSWORD_RULE.min} to ${PASSWORD_RULE.max} characters.` });

/** `[1, 2]`, `"1,2"`, or `""`/null/`"all"` for every website of the account. */
const websitesField = z
  .preprocess(
    (value) => {
      if (value === "" || value === "all" || value === null) return null;
      if (typeof value === "string") return value.split(",").map((part) => part.trim());
      return value;
    },
    z
      .array(
        z.coerce
          .number({ error: "The websites must be website ids." })
          .int("The websites must be website ids.")
          .positive("The websites must be website ids."),
        { error: "The websites must be a list of website ids." },
      )
      .max(1000)
      .nullable(),
  )
  .meta({ description: "Website ids the user is limited to; null or empty for all of the account's.", example: [1, 2] });

export const roleField = choice("role", ROLES).meta({
  description:
    "`owner` (members and account settings, and all an admin does), `admin` (websites and settings), `viewer` (reads statistics).",
});

export const userCreateSchema = z
  .object({ email: emailField, password: passwordField.optional(), role: roleField.default("viewer"), websites: websitesField.optional() })
  .meta({ id: "UserCreate" });
export const userUpdateSchema = z.object({ role: roleField.optional(), websites: websitesField.optional() }).meta({ id: "UserUpdate" });
export const invitationSchema = z
  .object({ email: emailField, role: roleField.default("viewer"), websites: websitesField.optional() })
  .meta({ id: "Invitation" });
export const keyCreateSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100, "The name may not be longer than 100 characters.")
      .default("default")
      .meta({ description: "A name to recognise the key by." }),
    scope: choice("scope", KEY_SCOPES)
      .default("read")
      .meta({ description: "`read` (changes nothing) or `write` (what the user's role allows)." }),
  })
  .meta({ id: "KeyCreate" });

export type UserCreate = z.output<typeof userCreateSchema>;
export type UserUpdate = z.output<typeof userUpdateSchema>;
export type InvitationInput = z.output<typeof invitationSchema>;
export type KeyCreate = z.output<typeof keyCreateSchema>;

export const parseUserCreate = (input: unknown): UserCreate => validate(userCreateSchema, input);
export const parseUserUpdate = (input: unknown): UserUpdate => validate(userUpdateSchema, input);
export const parseEmail = (input: unknown): string => validate(z.object({ email: emailField }), { email: input }).email;
export const parsePassword = (input: unknown): string => validate(z.object({ password: passwordField }), { password: input }).password;
