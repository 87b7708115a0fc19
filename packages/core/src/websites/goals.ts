import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, GoalsTable } from "../storage/schema.js";
import { ValidationError } from "../shared/errors.js";
import { hasControlCharacters } from "../shared/text.js";
import { choice, validate } from "../shared/validation.js";
import { PAGE_GOAL_LIMITS } from "../model/stat-names.js";
import { deleteRecord, timestamp } from "./website-records.js";
import type { Websites } from "./websites.js";

/** A goal as the API shows it, in the shape of Plausible's Sites API. */
export const goalSchema = z
  .object({
    id: z.int().positive().meta({ example: 1 }),
    website_id: z.int().positive().meta({ example: 1 }),
    goal_type: z.enum(["page", "event"]).meta({ description: "`page`: a page was viewed; `event`: an event was fired." }),
    page_path: z.string().nullable().meta({ description: "A page goal's pattern (`*`: any characters).", example: "/blog/*" }),
    event_name: z.string().nullable().meta({ description: "An event goal's event.", example: null }),
    display_name: z.string().meta({ description: "What the dashboard calls it.", example: "Visit /blog/*" }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "Goal" });
export type Goal = z.infer<typeof goalSchema>;

/** Most goals of each kind one website keeps: page goals are counted together in one query. */
export const GOAL_LIMITS = { page: PAGE_GOAL_LIMITS.patterns, event: 50, nameLength: 120 } as const;

const text = (field: string, max: number) =>
  z
    .string({ error: `The ${field.replace("_", " ")} must be text.` })
    .trim()
    .max(max, `The ${field.replace("_", " ")} may not be longer than ${max} characters.`)
    .refine((value) => !hasControlCharacters(value), `The ${field.replace("_", " ")} may not hold control characters.`);

export const goalCreateSchema = z
  .object({
    goal_type: choice("goal_type", ["page", "event"]).meta({ description: "`page` or `event`." }),
    page_path: text("page_path", PAGE_GOAL_LIMITS.length)
      .optional()
      .meta({ description: "With `page`: a path starting with `/`; `*` stands for any characters (`/blog/*`).", example: "/pricing" }),
    event_name: text("event_name", 200).optional().meta({ description: "With `event`: the event's name.", example: "Signup" }),
    display_name: text("display_name", GOAL_LIMITS.nameLength)
      .optional()
      .meta({ description: "What the dashboard calls it; default `Visit <page_path>` or the event's name." }),
  })
  .superRefine((goal, context) => {
    if (goal.goal_type === "page" && !goal.page_path?.startsWith("/"))
      context.addIssue({ code: "custom", path: ["page_path"], message: "A page goal's page path starts with /." });
    if (goal.goal_type === "event" && !goal.event_name)
      context.addIssue({ code: "custom", path: ["event_name"], message: "An event goal needs the event name." });
  })
  .meta({ id: "GoalCreate" });

/** What a caller sends to add a goal. */
export interface GoalInput {
  goal_type?: unknown;
  page_path?: unknown;
  event_name?: unknown;
  display_name?: unknown;
}

export interface Goals {
  /** The website's goals: page goals first, then events, each in the order they were added. */
  list(accountId: number, websiteId: number): Promise<Goal[]>;
  /** The same without an account check (statistics that already decided access). */
  listOfWebsite(websiteId: number): Promise<Goal[]>;
  create(accountId: number, websiteId: number, input: GoalInput): Promise<Goal>;
  delete(accountId: number, websiteId: number, goalId: number): Promise<void>;
}

const toGoal = (row: Selectable<GoalsTable>): Goal => ({
  id: Number(row.id),
  website_id: Number(row.website_id),
  goal_type: row.goal_type,
  page_path: row.goal_type === "page" ? row.value : null,
  event_name: row.goal_type === "event" ? row.value : null,
  display_name: row.display_name,
  created_at: row.created_at,
});

/** Goals shared by everyone who sees a website (docs/statistics.md, "Goals"). */
export function createGoals(db: Kysely<Database>, websites: Websites): Goals {
  async function listOfWebsite(websiteId: number): Promise<Goal[]> {
    const rows = await db
      .selectFrom("goals")
      .selectAll()
      .where("website_id", "=", websiteId)
      .orderBy("goal_type", "desc")
      .orderBy("id")
      .execute();
    return rows.map(toGoal);
  }

  return {
    async list(accountId, websiteId) {
      await websites.get(accountId, websiteId);
      return listOfWebsite(websiteId);
    },
    listOfWebsite,
    async create(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      const goal = validate(goalCreateSchema, input);
      const type = goal.goal_type;
      const value = (type === "page" ? goal.page_path : goal.event_name) ?? "";
      const field = type === "page" ? "page_path" : "event_name";
      const existing = await db
        .selectFrom("goals")
        .select(["value"])
        .where("website_id", "=", websiteId)
        .where("goal_type", "=", type)
        .execute();
      if (existing.some((row) => row.value === value)) throw ValidationError.field(field, "The website has this goal already.");
      if (existing.length >= GOAL_LIMITS[type])
        throw ValidationError.field(field, `A website may have at most ${GOAL_LIMITS[type]} ${type} goals.`);
      const row = await db
        .insertInto("goals")
        .values({
          website_id: websiteId,
          goal_type: type,
          value,
          display_name: goal.display_name || (type === "page" ? `Visit ${value}` : value),
          created_at: timestamp(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toGoal(row);
    },
    async delete(accountId, websiteId, goalId) {
      await websites.get(accountId, websiteId);
      await deleteRecord(db, "goals", websiteId, goalId);
    },
  };
}

/** A goal's value as the `goals` statistic names its row: `Visit <pattern>` for a page goal, the event's name for an event. */
export const goalRowValue = (goal: Goal): string => (goal.page_path === null ? (goal.event_name ?? "") : `Visit ${goal.page_path}`);
