import type { Kysely, Selectable } from "kysely";
import * as z from "zod";
import type { Database, SavedSegmentsTable } from "../storage/schema.js";
import { FILTER_LIMITS, parseFilters } from "../model/filters.js";
import { NotFoundError, ValidationError } from "../shared/errors.js";
import { hasControlCharacters } from "../shared/text.js";
import { choice, validate } from "../shared/validation.js";
import { deleteRecord, requireRoom, timestamp } from "./website-records.js";
import type { Websites } from "./websites.js";

/** A saved segment as the API shows it. */
export const savedSegmentSchema = z
  .object({
    id: z.int().positive().meta({ example: 2 }),
    website_id: z.int().positive().meta({ example: 1 }),
    name: z.string().meta({ example: "Newsletter readers on phones" }),
    filters: z.array(z.string()).meta({
      description: "The API's filters (`dimension:operator:value`), all of which must hold.",
      example: ["utm_medium:is:email", "device:is:mobile"],
    }),
    visibility: z
      .enum(["personal", "shared"])
      .meta({ description: "`personal`: seen by the user who saved it only; `shared`: by everyone who sees the website." }),
    created_at: z.string().meta({ format: "date-time" }),
    updated_at: z.string().meta({ format: "date-time" }),
  })
  .meta({ id: "SavedSegment" });
export type SavedSegment = z.infer<typeof savedSegmentSchema>;

export const SAVED_SEGMENT_LIMITS = { nameLength: 100, perWebsite: 200 } as const;

const name = z
  .string({ error: "The name field is required." })
  .trim()
  .min(1, "The name field is required.")
  .max(SAVED_SEGMENT_LIMITS.nameLength, `The name may not be longer than ${SAVED_SEGMENT_LIMITS.nameLength} characters.`)
  .refine((value) => !hasControlCharacters(value), "The name may not hold control characters.")
  .meta({ example: "Newsletter readers on phones" });

/** One filter or several (an array, or text with one a line), each as `GET /api/v1/stats` takes it. */
const filters = z
  .union(
    [
      z.array(z.string({ error: "A filter must be text." })),
      z.string().transform((value) =>
        value
          .split("\n")
          .map((line) => line.trim())
          .filter((line) => line !== ""),
      ),
    ],
    { error: "The filters field is required." },
  )
  .pipe(
    z
      .array(z.string())
      .min(1, "A segment has at least one filter.")
      .max(FILTER_LIMITS.conditions, `A segment has at most ${FILTER_LIMITS.conditions} filters.`),
  )
  .meta({
    description:
      "The filters, as `GET /api/v1/stats` takes them (`country:is:DE`, `page:contains:/blog`), all of which must hold; a form sends them one a line.",
    example: ["utm_medium:is:email", "device:is:mobile"],
  });

const visibility = choice("visibility", ["personal", "shared"]).meta({
  description:
    "`personal` (the default for a user) or `shared` (the default without one: an account key, the host's login). Sharing needs an admin or owner.",
});

export const savedSegmentCreateSchema = z.object({ name, filters, visibility: visibility.optional() }).meta({ id: "SavedSegmentCreate" });
export const savedSegmentUpdateSchema = z
  .object({ name: name.optional(), filters: filters.optional(), visibility: visibility.optional() })
  .meta({ id: "SavedSegmentUpdate" });

export interface SavedSegmentInput {
  name?: unknown;
  filters?: unknown;
  visibility?: unknown;
}

/** Who asks: the account, and the user when a person (not an account key or the host's login) does. */
export interface SegmentViewer {
  accountId: number;
  userId?: number | undefined;
}

export interface SavedSegments {
  /** The segments the viewer sees on the website: shared ones and their own, by name. */
  list(viewer: SegmentViewer, websiteId: number): Promise<SavedSegment[]>;
  get(viewer: SegmentViewer, websiteId: number, segmentId: number): Promise<SavedSegment>;
  create(viewer: SegmentViewer, websiteId: number, input: SavedSegmentInput): Promise<SavedSegment>;
  update(viewer: SegmentViewer, websiteId: number, change: SavedSegmentInput & { id: number }): Promise<SavedSegment>;
  delete(viewer: SegmentViewer, websiteId: number, segmentId: number): Promise<void>;
}

const toSegment = (row: Selectable<SavedSegmentsTable>): SavedSegment => ({
  id: Number(row.id),
  website_id: Number(row.website_id),
  name: row.name,
  filters: JSON.parse(row.filters) as string[],
  visibility: row.user_id === null ? "shared" : "personal",
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/** The filters checked as the statistics check them (a 422 names each bad one as `filters.N`). */
function checkFilters(list: readonly string[]): void {
  try {
    parseFilters([...list]);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      Object.fromEntries(Object.entries(error.errors).map(([field, messages]) => [field.replace(/^filter/, "filters"), messages])),
    );
  }
}

/** The owner a visibility stands for; a personal segment needs a user. */
function ownerOf(viewer: SegmentViewer, chosen: "personal" | "shared" | undefined): number | null {
  const wanted = chosen ?? (viewer.userId === undefined ? "shared" : "personal");
  if (wanted === "shared") return null;
  if (viewer.userId === undefined)
    throw ValidationError.field("visibility", "A personal segment belongs to a user: sign in, or use an API key of your own, or share it.");
  return viewer.userId;
}

/** Filter sets saved under a name, per website (docs/dashboard.md, "Saved segments"). */
export function createSavedSegments(db: Kysely<Database>, websites: Websites): SavedSegments {
  async function visibleRow(viewer: SegmentViewer, websiteId: number, segmentId: number) {
    const row = await db
      .selectFrom("saved_segments")
      .selectAll()
      .where("website_id", "=", websiteId)
      .where("id", "=", segmentId)
      .executeTakeFirst();
    if (!row || (row.user_id !== null && row.user_id !== viewer.userId)) throw new NotFoundError();
    return row;
  }

  return {
    async list(viewer, websiteId) {
      await websites.get(viewer.accountId, websiteId);
      const rows = await db
        .selectFrom("saved_segments")
        .selectAll()
        .where("website_id", "=", websiteId)
        .where((eb) =>
          viewer.userId === undefined ? eb("user_id", "is", null) : eb.or([eb("user_id", "is", null), eb("user_id", "=", viewer.userId)]),
        )
        .orderBy("name")
        .orderBy("id")
        .execute();
      return rows.map(toSegment);
    },
    async get(viewer, websiteId, segmentId) {
      await websites.get(viewer.accountId, websiteId);
      return toSegment(await visibleRow(viewer, websiteId, segmentId));
    },
    async create(viewer, websiteId, input) {
      await websites.get(viewer.accountId, websiteId);
      const segment = validate(savedSegmentCreateSchema, input);
      checkFilters(segment.filters);
      const userId = ownerOf(viewer, segment.visibility);
      await requireRoom(db, {
        table: "saved_segments",
        websiteId,
        max: SAVED_SEGMENT_LIMITS.perWebsite,
        field: "name",
        what: "saved segments",
      });
      const now = timestamp();
      const row = await db
        .insertInto("saved_segments")
        .values({
          website_id: websiteId,
          name: segment.name,
          filters: JSON.stringify(segment.filters),
          user_id: userId,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSegment(row);
    },
    async update(viewer, websiteId, { id, ...input }) {
      await websites.get(viewer.accountId, websiteId);
      const current = await visibleRow(viewer, websiteId, id);
      const change = validate(savedSegmentUpdateSchema, input);
      if (change.filters) checkFilters(change.filters);
      const row = await db
        .updateTable("saved_segments")
        .set({
          ...(change.name === undefined ? {} : { name: change.name }),
          ...(change.filters === undefined ? {} : { filters: JSON.stringify(change.filters) }),
          ...(change.visibility === undefined ? {} : { user_id: ownerOf(viewer, change.visibility) }),
          updated_at: timestamp(),
        })
        .where("website_id", "=", websiteId)
        .where("id", "=", current.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return toSegment(row);
    },
    async delete(viewer, websiteId, segmentId) {
      await websites.get(viewer.accountId, websiteId);
      await visibleRow(viewer, websiteId, segmentId);
      await deleteRecord(db, "saved_segments", websiteId, segmentId);
    },
  };
}
