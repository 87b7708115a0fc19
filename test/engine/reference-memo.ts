/**
 * The brute force's answers kept beside what they were worked out from (the model's visits,
 * a segment, a set of rows), so that a question asked again (of another dialect's store, or
 * of the same store read from day blocks) is worked out once. The answers are never changed
 * by their readers.
 */
const answers = new WeakMap<object, Map<string, unknown>>();

/** What `work` answers for `key` about `source`, worked out on the first call only. */
export function remembered<T>(source: object, key: string, work: () => T): T {
  let known = answers.get(source);
  if (!known) answers.set(source, (known = new Map()));
  if (known.has(key)) return known.get(key) as T;
  const answer = work();
  known.set(key, answer);
  return answer;
}
