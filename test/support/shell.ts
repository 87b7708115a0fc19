// Child processes as a user's shell would run them: node on PATH is the one running the tests.
import { spawn } from "node:child_process";
import { dirname } from "node:path";

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, collecting its output. */
export function runProcess(command: string, args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** A snippet run by bash, as pasted into a terminal. */
export const bash = (script: string, cwd: string, env: Record<string, string> = {}) => runProcess("bash", ["-c", script], cwd, env);
