import { TallyError } from "../shared/errors.js";

/** A Stats API v2 query Tally cannot answer as asked (HTTP 400 with Plausible's message). */
export class PlausibleQueryError extends TallyError {}
