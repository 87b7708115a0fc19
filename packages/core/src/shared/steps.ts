/**
 * A procedure written once whose IO may answer synchronously (better-sqlite3 on the
 * writer thread) or with promises (kysely): it yields each IO call's answer and gets the
 * settled value back. `runSync` drives it within one call, `runAsync` awaits each step.
 */
export type Steps<T> = Generator<unknown, T, unknown>;

export function runSync<T>(steps: Steps<T>): T {
  let step = steps.next();
  while (!step.done) {
    if (step.value instanceof Promise) throw new TypeError("a synchronous store answered with a promise");
    step = steps.next(step.value);
  }
  return step.value;
}

export async function runAsync<T>(steps: Steps<T>): Promise<T> {
  let step = steps.next();
  while (!step.done) step = steps.next(await step.value);
  return step.value;
}
