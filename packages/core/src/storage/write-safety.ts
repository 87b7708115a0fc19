/** How long the ids of written batches are kept: longer than any file of spilled hits waits for its next start. */
const BATCH_IDS_KEPT_MS = 30 * 86_400_000;

/** Batch ids written before this epoch ms may go, when salts before `day` go. */
export const batchesKeptFrom = (day: string) => Date.parse(day) - BATCH_IDS_KEPT_MS;

/** The key of `tally_meta` a probe writes (the time, ISO). */
export const PROBE_KEY = "probed_at";
