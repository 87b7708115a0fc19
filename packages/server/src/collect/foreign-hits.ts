import { NotFoundError, ValidationError, type CollectResult } from "@tally-analytics/core";
import { validate } from "@tally-analytics/core/internal";
import type * as z from "zod";
import { parseJsonObject, readText } from "../http/body.js";
import { describeError } from "../http/errors.js";
import type { RequestContext } from "../http/route.js";
import { collectReporter, COLLECT_BODY_LIMIT, countHit, hitRequestOf, type HitFields } from "./collect.js";

/** Why hits were not counted, when none was (`bot`, `excluded-ip`, …); null when one was. */
export type Dropped = Extract<CollectResult, { status: "dropped" }>["reason"] | null;

/**
 * Another analytics tool's hit endpoint (Plausible's `/api/event`, Umami's `/api/send`,
 * GoatCounter's `/count`): its request translated into Tally's hits, which go through
 * `tally.collect` like the tracker's, and answered the way that tool answers.
 */
export interface ForeignTracker<Body> {
  /** The request's payload: its JSON body (whatever its Content-Type), or its query for a pixel. */
  read?: (request: Request, url: URL) => Promise<unknown>;
  schema: z.ZodType<Body>;
  /** A hit the other tool's script itself flags as a bot's (GoatCounter's `b`): answered as dropped, never counted. */
  bot?: (body: Body) => boolean;
  /**
   * The hits are alternatives, not several hits: the first whose website Tally knows is
   * counted (Umami's website id as an alias, else its hostname).
   */
  alternatives?: boolean;
  /** The hits the payload stands for (Plausible's `d` may name several websites); throws ValidationError when it is unusable. */
  hits(body: Body): HitFields[];
  /** The tool's answer once the hits are counted, or dropped on purpose. */
  counted(dropped: Dropped): Response;
  /** The tool's error answer: each field (or `request`) with its messages. */
  failed(status: number, errors: Record<string, string[]>, headers: Record<string, string>): Response;
}

const readJson = async (request: Request) => parseJsonObject(await readText(request, COLLECT_BODY_LIMIT));

/**
 * Counts every hit; a website Tally does not know is skipped while another one counts
 * (Plausible's `d=a.com,b.com`), and is a 404 when none does. No hits (Umami's `identify`): nothing dropped.
 */
async function countAll(context: RequestContext<unknown, unknown>, hits: readonly HitFields[], alternatives: boolean): Promise<Dropped> {
  const request = hitRequestOf(context.request, context.ip);
  if (hits.length === 0) return null;
  let dropped: Dropped | undefined;
  let missing: NotFoundError | undefined;
  for (const hit of hits) {
    try {
      const result = await countHit(context.tally, request, hit);
      dropped = result.status === "accepted" ? null : (dropped ?? result.reason);
      if (alternatives) break;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      missing = error;
    }
  }
  if (dropped === undefined) throw missing ?? new NotFoundError("No website is registered for this domain.");
  return dropped;
}

/** The route handler of a foreign tracker's endpoint. */
export function foreignHitHandler<Body>(tracker: ForeignTracker<Body>) {
  const report = collectReporter();
  return async (context: RequestContext<unknown, unknown>): Promise<Response> => {
    try {
      const body = validate(tracker.schema, await (tracker.read ?? readJson)(context.request, context.url));
      if (tracker.bot?.(body)) return tracker.counted("bot");
      return tracker.counted(await countAll(context, tracker.hits(body), tracker.alternatives === true));
    } catch (error) {
      // A hit breaking core's rules is a bad request here, as on /collect.
      if (error instanceof ValidationError) return tracker.failed(400, error.errors, {});
      const { status, payload, headers } = describeError(error, report);
      return tracker.failed(status, { request: [payload.message] }, headers);
    }
  };
}
