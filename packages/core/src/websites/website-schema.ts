import * as z from "zod";
import { timestamp } from "../accounts/account-schema.js";
import { PAGE_NAMES } from "./website-input.js";

/** A website as the API returns it: the password is only ever a boolean. */
export const websiteSchema = z
  .object({
    id: z.int().positive(),
    domain: z.string().meta({ example: "example.com" }),
    privacy: z.literal([0, 1, 2]).meta({ description: "Share page: 0 public, 1 private, 2 password." }),
    password: z.boolean().meta({ description: "Whether a share-page password is set (the password itself is never returned)." }),
    email: z.literal([0, 1]),
    exclude_bots: z.literal([0, 1]),
    exclude_params: z.string().meta({ description: "Stripped query parameters, one a line.", example: "" }),
    exclude_ips: z.string().meta({ description: "Excluded addresses and CIDR ranges, one a line.", example: "" }),
    timezone: z.string().meta({ example: "UTC" }),
    retention_days: z.int().meta({ example: 730 }),
    page_names: z.enum(PAGE_NAMES).meta({ description: "`path` or `route`: how pages are named.", example: "path" }),
    aliases: z.string().meta({ description: "Other names hits may name the website by (Umami's website id), one a line.", example: "" }),
    include_subdomains: z.literal([0, 1]).meta({ description: "1: hits on any subdomain of `domain` count for this website too." }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: "Website" });

export type Website = z.infer<typeof websiteSchema>;
