import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, FunnelsTable } from "../storage/schema.js";
import { NotFoundError } from "../shared/errors.js";
import { validate } from "../shared/validation.js";
import { FUNNEL_LIMITS, parseStep, stepText } from "../model/path-steps.js";
import { deleteRecord, requireRoom, timestamp } from "./website-records.js";
import type { Websites } from "./websites.js";

/** A funnel as the API shows it. */
export const funnelSchema = z
  .object({
    id: z.int().positive().meta({ example: 1 }),
    website_id: z.int().positive().meta({ example: 1 }),
    name: z.string().meta({ example: "Checkout" }),
    steps: z.array(z.string()).meta({ example: ["page:/pricing", "page:/signup*", "event:Signup"] }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "Funnel" });
export type Funnel = z.infer<typeof funnelSchema>;

/** What a caller sends to define a funnel; a form gives `steps` as text, one step a line. */
export interface FunnelInput {
  name?: unknown;
  steps?: unknown;
}

/** Most funnels one website keeps. */
export const FUNNELS_PER_WEBSITE = 50;

const { minSteps, maxSteps, nameLength } = FUNNEL_LIMITS;
const STEP_MESSAGE = "A step must be a page (/pricing, or page:/blog/*) or an event (event:Signup), 1 to 200 characters.";

export const funnelCreateSchema = z
  .object({
    name: z
      .string({ error: "The name field is required." })
      .trim()
      .min(1, "The name field is required.")
      .max(nameLength, `The name may not be longer than ${nameLength} characters.`)
      .meta({ example: "Checkout" }),
    steps: z
      .union(
        [
          z.array(z.string({ error: STEP_MESSAGE })),
          z.string().transform((text) =>
            text
              .split("\n")
              .map((line) => line.trim())
              .filter((line) => line !== ""),
          ),
        ],
        { error: "The steps field is required." },
      )
      .pipe(
        z
          .array(
            z.string().transform((text, context) => {
              const step = parseStep(text);
              if (step) return stepText(step);
              context.addIssue({ code: "custom", message: STEP_MESSAGE, input: text });
              return z.NEVER;
            }),
          )
          .min(minSteps, `A funnel has ${minSteps} to ${maxSteps} steps.`)
          .max(maxSteps, `A funnel has ${minSteps} to ${maxSteps} steps.`),
      )
      .meta({
        description: `${minSteps} to ${maxSteps} steps in order, each \`page:<pattern>\` (\`*\` stands for any characters, case-sensitive; a path alone, \`/pricing\`, is a page too) or \`event:<name>\`; a form sends them one a line.`,
        example: ["page:/pricing", "page:/signup*", "event:Signup"],
      }),
  })
  .meta({ id: "FunnelCreate" });

export interface Funnels {
  list(accountId: number, websiteId: number): Promise<Funnel[]>;
  create(accountId: number, websiteId: number, input: FunnelInput): Promise<Funnel>;
  get(accountId: number, websiteId: number, funnelId: number): Promise<Funnel>;
  /** The same without an account check (shared statistics, which already decided access). */
  getOfWebsite(websiteId: number, funnelId: number): Promise<Funnel>;
  delete(accountId: number, websiteId: number, funnelId: number): Promise<void>;
}

const toFunnel = (row: Selectable<FunnelsTable>): Funnel => ({
  id: Number(row.id),
  website_id: Number(row.website_id),
  name: row.name,
  steps: row.steps.split("\n"),
  created_at: row.created_at,
});

/** Funnel definitions, per website of an account (docs/statistics.md, "Funnels"). */
export function createFunnels(db: Kysely<Database>, websites: Websites): Funnels {
  async function getOfWebsite(websiteId: number, funnelId: number): Promise<Funnel> {
    const row = await db
      .selectFrom("funnels")
      .selectAll()
      .where("website_id", "=", websiteId)
      .where("id", "=", funnelId)
      .executeTakeFirst();
    if (!row) throw new NotFoundError();
    return toFunnel(row);
  }

  return {
    async list(accountId, websiteId) {
      await websites.get(accountId, websiteId);
      const rows = await db.selectFrom("funnels").selectAll().where("website_id", "=", websiteId).orderBy("id").execute();
      return rows.map(toFunnel);
    },
    async create(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      const { name, steps } = validate(funnelCreateSchema, input);
      await requireRoom(db, { table: "funnels", websiteId, max: FUNNELS_PER_WEBSITE, field: "name", what: "funnels" });
      const row = await db
        .insertInto("funnels")
        .values({ website_id: websiteId, name, steps: steps.join("\n"), created_at: timestamp() })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toFunnel(row);
    },
    async get(accountId, websiteId, funnelId) {
      await websites.get(accountId, websiteId);
      return getOfWebsite(websiteId, funnelId);
    },
    getOfWebsite,
    async delete(accountId, websiteId, funnelId) {
      await websites.get(accountId, websiteId);
      await deleteRecord(db, "funnels", websiteId, funnelId);
    },
  };
}
