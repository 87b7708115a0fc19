/**
 * Loaded with `node --import`: makes `@clickhouse/client` and `chdb` unresolvable, as in an
 * app that never installed them, and notes each time something asks for one in the file
 * `TALLY_ASKED_LOG` names.
 */
import { appendFileSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

const HIDDEN = /^(@clickhouse\/client|chdb)(\/|$)/;

export async function resolve(specifier, context, next) {
  if (!HIDDEN.test(specifier)) return next(specifier, context);
  if (process.env.TALLY_ASKED_LOG) appendFileSync(process.env.TALLY_ASKED_LOG, `${specifier}\n`);
  const error = new Error(`Cannot find package '${specifier}'`);
  error.code = "ERR_MODULE_NOT_FOUND";
  throw error;
}

if (isMainThread) register(import.meta.url);
