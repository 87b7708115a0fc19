import * as z from "zod";
import { REPORT_PERIODS } from "./account-input.js";

/** When something was created or changed: an ISO 8601 instant in UTC. */
export const timestamp = z.iso.datetime().meta({ example: "2026-11-21T10:00:00.000Z" });

/** An account as the API returns it (`GET /api/v1/account`). */
export const accountSchema = z
  .object({
    id: z.int().positive(),
    name: z.string().meta({ description: "Given with `tally keys create --name`.", example: "default" }),
    created_at: timestamp,
    email: z.string().nullable().meta({
      description: "Where the e-mail reports of its websites (those with `email` 1) go; null for none.",
      example: "owner@example.com",
    }),
    report_period: z
      .enum(REPORT_PERIODS)
      .meta({ description: "What each report covers: the previous full week (Monday–Sunday) or month." }),
  })
  .meta({ id: "Account", description: "The account an API key (or the host's authenticate hook) names." });

export type Account = z.infer<typeof accountSchema>;
