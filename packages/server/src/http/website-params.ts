import { NotFoundError, type Access } from "@tally-analytics/core";
import * as z from "zod";
import { visibleWebsite } from "./permissions.js";

/** `{id}`: a positive integer; anything else names no resource (404, like a missing one). */
export const websiteParams = z.object({
  id: z
    .string()
    .regex(/^\d+$/)
    .refine((text) => Number.isSafeInteger(Number(text)) && Number(text) >= 1)
    .meta({ description: "The website's id.", example: "1" }),
});

/** The website `{id}` names, when the caller may see it (a user limited to other websites gets 404, as for a missing one). */
export function resourceId({ params, access }: { params: Record<string, string>; access: Access }): number {
  const parsed = websiteParams.safeParse(params);
  if (!parsed.success) throw new NotFoundError();
  return visibleWebsite(access, Number(parsed.data.id));
}
