import * as z from "zod";

/** When something was created or changed: an ISO 8601 instant in UTC. */
export const timestamp = z.iso.datetime().meta({ example: "2026-11-21T10:00:00.000Z" });

/** An account as the API returns it (`GET /api/v1/account`). */
export const accountSchema = z
  .object({
    id: z.int().positive(),
    name: z.string().meta({ description: "Given with `tally keys create --name`.", example: "default" }),
    created_at: timestamp,
  })
  .meta({ id: "Account", description: "The account an API key (or the host's authenticate hook) names." });

export type Account = z.infer<typeof accountSchema>;
