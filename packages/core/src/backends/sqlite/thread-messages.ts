import { parentPort, type Worker } from "node:worker_threads";

/** A request to a thread: its body and the id its answer carries. */
export type ThreadRequest<Body> = Body & { id: number };
/** A thread's answer; a failure keeps the error's code (SQLITE_BUSY, SQLITE_FULL…). */
export type ThreadResponse = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; code?: string };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The host's side of a thread: requests with ids, answers matched to them, the thread
 * referenced only while a request is out (the process waits for what it started, never
 * for an idle thread), every request rejected when the thread fails.
 */
export function createThreadClient<Body extends object>(worker: Worker, errorOf: (response: { message: string; code?: string }) => Error) {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let failure: Error | null = null;

  function settle(id: number, with_: (entry: Pending) => void): void {
    const entry = pending.get(id);
    if (!entry) return;
    pending.delete(id);
    if (pending.size === 0) worker.unref();
    with_(entry);
  }

  function fail(error: Error): void {
    failure ??= error;
    for (const id of [...pending.keys()]) settle(id, (entry) => entry.reject(error));
  }

  return {
    /** Answers of this thread, told to `onAnswer` after they settle their request. */
    listen(onAnswer: (id: number) => void = () => {}): void {
      worker.on("message", (response: ThreadResponse | { ready: true }) => {
        if ("ready" in response) return;
        settle(response.id, (entry) => (response.ok ? entry.resolve(response.value) : entry.reject(errorOf(response))));
        onAnswer(response.id);
      });
      worker.on("error", fail);
      // After the listeners: adding a "message" listener references the worker's port again.
      worker.unref();
    },
    send(body: Body): { id: number; answer: Promise<unknown> } {
      const id = nextId++;
      if (failure) return { id, answer: Promise.reject(failure) };
      worker.ref();
      const answer = new Promise<unknown>((resolve, reject) => pending.set(id, { resolve, reject }));
      worker.postMessage({ ...body, id });
      return { id, answer };
    },
    fail,
    get failed() {
      return failure !== null;
    },
  };
}

export type ThreadClient<Body extends object> = ReturnType<typeof createThreadClient<Body>>;

/**
 * The thread's side: answers requests one at a time, in arrival order (a write's
 * transaction never interleaves with another request), each answer carrying its id.
 */
export function serveRequests<Body>(
  handle: (request: ThreadRequest<Body>) => unknown,
  hooks: { before?(): void; after?(error: unknown): void } = {},
): void {
  async function answer(request: ThreadRequest<Body>): Promise<ThreadResponse> {
    try {
      hooks.before?.();
      const value = await handle(request);
      hooks.after?.(null);
      return { id: request.id, ok: true, value };
    } catch (error) {
      hooks.after?.(error);
      const code = (error as { code?: unknown } | null)?.code;
      return {
        id: request.id,
        ok: false,
        message: error instanceof Error ? error.message : String(error),
        ...(typeof code === "string" ? { code } : {}),
      };
    }
  }
  let queue: Promise<void> = Promise.resolve();
  parentPort!.on("message", (request: ThreadRequest<Body>) => {
    queue = queue.then(async () => parentPort!.postMessage(await answer(request)));
  });
}
