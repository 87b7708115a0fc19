import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { AnnotationsTable, Database } from "../storage/schema.js";
import { isCalendarDate, isInDomain } from "../shared/calendar.js";
import { NotFoundError } from "../shared/errors.js";
import { hasControlCharacters } from "../shared/text.js";
import { validate } from "../shared/validation.js";
import { deleteRecord, requireRoom, timestamp } from "./website-records.js";
import type { Websites } from "./websites.js";

/** A note on a day of a website, as the API shows it. */
export const annotationSchema = z
  .object({
    id: z.int().positive().meta({ example: 1 }),
    website_id: z.int().positive().meta({ example: 1 }),
    date: z
      .string()
      .meta({ format: "date", description: "The day it is about, `Y-m-d` in the website's time zone.", example: "2026-03-02" }),
    text: z.string().meta({ example: "Launched the new pricing page" }),
    created_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "Annotation" });
export type Annotation = z.infer<typeof annotationSchema>;

/** Bounds: its text, and how many one website keeps. */
export const ANNOTATION_LIMITS = { textLength: 500, perWebsite: 1000 } as const;

const day = z
  .string({ error: "The date field is required." })
  .refine((value) => isCalendarDate(value) && isInDomain(value), "The date is not a valid date in the format Y-m-d.")
  .meta({ format: "date", description: "`Y-m-d`, a day in the website's time zone.", example: "2026-03-02" });

const note = z
  .string({ error: "The text field is required." })
  .trim()
  .min(1, "The text field is required.")
  .max(ANNOTATION_LIMITS.textLength, `The text may not be longer than ${ANNOTATION_LIMITS.textLength} characters.`)
  .refine((value) => !hasControlCharacters(value.replace(/\r?\n/g, " ")), "The text may not hold control characters.")
  .meta({ example: "Launched the new pricing page" });

export const annotationCreateSchema = z.object({ date: day, text: note }).meta({ id: "AnnotationCreate" });
export const annotationUpdateSchema = z.object({ date: day.optional(), text: note.optional() }).meta({ id: "AnnotationUpdate" });

/** `from` and `to` of a listing, both optional. */
export const annotationListQuery = z.object({
  from: day.optional().meta({ description: "First day listed (inclusive)." }),
  to: day.optional().meta({ description: "Last day listed (inclusive)." }),
});

export interface AnnotationInput {
  date?: unknown;
  text?: unknown;
}

export interface Annotations {
  /** The website's annotations in date order, those from `from` to `to` when given. */
  list(accountId: number, websiteId: number, range?: { from?: unknown; to?: unknown }): Promise<Annotation[]>;
  create(accountId: number, websiteId: number, input: AnnotationInput): Promise<Annotation>;
  update(accountId: number, websiteId: number, change: AnnotationInput & { id: number }): Promise<Annotation>;
  delete(accountId: number, websiteId: number, annotationId: number): Promise<void>;
}

const toAnnotation = (row: Selectable<AnnotationsTable>): Annotation => ({
  id: Number(row.id),
  website_id: Number(row.website_id),
  date: row.date,
  text: row.text,
  created_at: row.created_at,
});

/** Notes on the charts shared by everyone who sees a website (docs/dashboard.md, "Annotations"). */
export function createAnnotations(db: Kysely<Database>, websites: Websites): Annotations {
  return {
    async list(accountId, websiteId, range = {}) {
      await websites.get(accountId, websiteId);
      const { from, to } = validate(annotationListQuery, range);
      let query = db.selectFrom("annotations").selectAll().where("website_id", "=", websiteId);
      if (from !== undefined) query = query.where("date", ">=", from);
      if (to !== undefined) query = query.where("date", "<=", to);
      return (await query.orderBy("date").orderBy("id").execute()).map(toAnnotation);
    },
    async create(accountId, websiteId, input) {
      await websites.get(accountId, websiteId);
      const { date, text } = validate(annotationCreateSchema, input);
      await requireRoom(db, { table: "annotations", websiteId, max: ANNOTATION_LIMITS.perWebsite, field: "date", what: "annotations" });
      const row = await db
        .insertInto("annotations")
        .values({ website_id: websiteId, date, text, created_at: timestamp() })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toAnnotation(row);
    },
    async update(accountId, websiteId, { id, ...input }) {
      await websites.get(accountId, websiteId);
      const { date, text } = validate(annotationUpdateSchema, input);
      const set = { ...(date === undefined ? {} : { date }), ...(text === undefined ? {} : { text }) };
      const row =
        Object.keys(set).length === 0
          ? await db.selectFrom("annotations").selectAll().where("website_id", "=", websiteId).where("id", "=", id).executeTakeFirst()
          : await db
              .updateTable("annotations")
              .set(set)
              .where("website_id", "=", websiteId)
              .where("id", "=", id)
              .returningAll()
              .executeTakeFirst();
      if (!row) throw new NotFoundError();
      return toAnnotation(row);
    },
    async delete(accountId, websiteId, annotationId) {
      await websites.get(accountId, websiteId);
      await deleteRecord(db, "annotations", websiteId, annotationId);
    },
  };
}
