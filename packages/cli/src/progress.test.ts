import { describe, expect, it } from "vitest";
import { createProgress } from "./progress.js";

/** A stream that records what is written, as a terminal (isTTY) or a pipe. */
function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  const stream = {
    isTTY,
    columns: 120,
    write(chunk: string) {
      written.push(chunk);
      return true;
    },
    cursorTo() {
      return true;
    },
    clearLine() {
      return true;
    },
    moveCursor() {
      return true;
    },
    on() {
      return stream;
    },
    removeListener() {
      return stream;
    },
  };
  return { stream: stream as unknown as NodeJS.WriteStream, text: () => written.join("") };
}

describe("progress on stderr", () => {
  it("draws a bar on a terminal: percent, rows, rows/s and ETA", () => {
    const { stream, text } = fakeStream(true);
    const progress = createProgress(stream);
    progress.update({ label: "importing", done: 500, total: 1000, rows: 25_000 });
    progress.stop();
    expect(text()).toMatch(/importing\s+\[[█░]+\] 100% \| 25,000 rows \| [\d,]+ rows\/s \| ETA 0s/);
  });

  it("writes plain lines elsewhere: every ten percent, and a last one per phase", () => {
    const { stream, text } = fakeStream(false);
    const progress = createProgress(stream);
    for (let done = 0; done <= 1000; done += 50) progress.update({ label: "checking", done, total: 1000, rows: done * 10 });
    progress.update({ label: "importing", done: 1000, total: 1000, rows: 10_000 });
    progress.stop();
    const lines = text().trim().split("\n");
    expect(lines.filter((line) => line.startsWith("checking: ")).map((line) => line.split(",")[0])).toEqual([
      "checking: 0%",
      "checking: 10%",
      "checking: 20%",
      "checking: 30%",
      "checking: 40%",
      "checking: 50%",
      "checking: 60%",
      "checking: 70%",
      "checking: 80%",
      "checking: 90%",
      "checking: 100%",
      "checking: done",
    ]);
    expect(lines.slice(-2).map((line) => line.split(",")[0])).toEqual(["importing: 100%", "importing: done"]);
    expect(text()).not.toMatch(/\u001b\[/);
  });
});
