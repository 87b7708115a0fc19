import { describe, expect, it } from "vitest";
import type { Hit } from "../model/hit.js";
import { createWriteQueue } from "./write-queue.js";

/** A store whose writes end only when the test says so: what each write carried, in order. */
function gatedStore() {
  const writes: { size: number; end: (error?: Error) => void }[] = [];
  return {
    writes,
    store: {
      write: (hits: readonly Hit[]) =>
        new Promise<void>((resolve, reject) => writes.push({ size: hits.length, end: (error) => (error ? reject(error) : resolve()) })),
      probe: async () => {},
    },
  };
}

const hit = (n: number) => ({ websiteId: 1, timestamp: n }) as unknown as Hit;
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe("write queue back-pressure", () => {
  it("holds a caller back past two batches only until the write under way ends, then hands the store the next batch", async () => {
    const { store, writes } = gatedStore();
    const queue = createWriteQueue({ store, batchSize: 10, flushIntervalMs: 60_000 });
    for (let n = 0; n < 10; n++) await queue.add(hit(n));
    expect(writes.map((w) => w.size)).toEqual([10]);
    for (let n = 10; n < 19; n++) await queue.add(hit(n));
    let released = false;
    const held = queue.add(hit(19)).then(() => (released = true));
    await settled();
    expect(released).toBe(false);
    writes[0]!.end();
    await held;
    // Released by the first write's end, with ten hits still unwritten: they are already on their way.
    expect(queue.buffered).toBe(10);
    await settled();
    expect(writes.map((w) => w.size)).toEqual([10, 10]);
    writes[1]!.end();
    await queue.flush();
    expect(queue.buffered).toBe(0);
  });

  it("releases a held caller when the write under way fails, and keeps its hits", async () => {
    const { store, writes } = gatedStore();
    const queue = createWriteQueue({ store, batchSize: 10, flushIntervalMs: 60_000 });
    for (let n = 0; n < 19; n++) await queue.add(hit(n));
    const held = queue.add(hit(19));
    await settled();
    writes[0]!.end(new Error("disk I/O error"));
    await held;
    expect(queue.buffered).toBe(20);
  });
});
