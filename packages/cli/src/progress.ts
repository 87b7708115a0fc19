import cliProgress from "cli-progress";

/** One phase of a long command: how far it is, in `unit` (bytes or rows), and the rows handled. */
export interface ProgressUpdate {
  label: string;
  done: number;
  total: number;
  rows: number;
}

export interface Progress {
  update(update: ProgressUpdate): void;
  /** Ends the bar (or prints the last line) of the phase under way. */
  stop(): void;
}

const number = (n: number) => Math.round(n).toLocaleString("en-US");

/**
 * Progress on stderr (stdout stays parseable): a cli-progress bar on a terminal (percent,
 * rows/s, ETA), plain lines every ten percent or five seconds otherwise (logs, CI).
 */
export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  let bar: cliProgress.SingleBar | null = null;
  let phase = "";
  let started = 0;
  let lastLine = 0;
  let lastStep = -1;
  let last: ProgressUpdate | null = null;

  const rate = (rows: number) => rows / Math.max(0.001, (Date.now() - started) / 1000);
  const percent = (update: ProgressUpdate) => (update.total > 0 ? Math.min(100, Math.floor((100 * update.done) / update.total)) : 0);

  function stop(): void {
    if (bar) {
      if (last) bar.update(last.total, { rows: number(last.rows), speed: number(rate(last.rows)) });
      bar.stop();
    } else if (last && !stream.isTTY) {
      stream.write(`${last.label}: done, ${number(last.rows)} rows (${number(rate(last.rows))} rows/s)\n`);
    }
    bar = null;
    phase = "";
    last = null;
  }

  function start(update: ProgressUpdate): void {
    phase = update.label;
    started = Date.now();
    lastLine = started;
    lastStep = -1;
    if (!stream.isTTY) return;
    bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${update.label.padEnd(9)} [{bar}] {percentage}% | {rows} rows | {speed} rows/s | ETA {eta_formatted}`,
        hideCursor: true,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(Math.max(1, update.total), 0, { rows: "0", speed: "0" });
  }

  return {
    update(update) {
      if (update.label !== phase) {
        stop();
        start(update);
      }
      last = update;
      if (bar) {
        bar.setTotal(Math.max(1, update.total));
        bar.update(update.done, { rows: number(update.rows), speed: number(rate(update.rows)) });
        return;
      }
      const step = Math.floor(percent(update) / 10);
      if (step > lastStep || Date.now() - lastLine >= 5000) {
        lastStep = step;
        lastLine = Date.now();
        stream.write(`${update.label}: ${percent(update)}%, ${number(update.rows)} rows, ${number(rate(update.rows))} rows/s\n`);
      }
    },
    stop,
  };
}
