/**
 * A background job run once at a time: a call while a run is under way joins it, and
 * `settle()` waits for that run (close), its failure already reported to the caller.
 */
export function oneRunAtATime<A extends unknown[], T>(work: (...args: A) => Promise<T>) {
  let running: Promise<T> | null = null;
  return {
    run(...args: A): Promise<T> {
      running ??= work(...args).finally(() => {
        running = null;
      });
      return running;
    },
    async settle(): Promise<void> {
      await running?.catch(() => {});
    },
  };
}
