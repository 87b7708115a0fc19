// Writes packages/core/lists/referrer-spam.txt, the referring hosts whose hits are dropped
// as spam (websites with exclude_bots=1), from Matomo's maintained list (public domain;
// Plausible uses it too). Refresh: `node scripts/refresh-referrer-spam.mjs [URL or file]`.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const LIST = "https://raw.githubusercontent.com/matomo-org/referrer-spam-list/master/spammers.txt";
const ROOT = fileURLToPath(new URL("..", import.meta.url));

const from = process.argv[2] ?? LIST;
const text = /^https?:/.test(from) ? await (await fetch(from)).text() : readFileSync(from, "utf8");
const hosts = [...new Set(text.split("\n").map((line) => line.trim().toLowerCase()))].filter((host) =>
  /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(host),
);
if (hosts.length < 1000) throw new Error(`${from} has ${hosts.length} hosts: not the list`);
const target = `${ROOT}packages/core/lists/referrer-spam.txt`;
writeFileSync(target, `${hosts.sort().join("\n")}\n`);
console.log(`${target}: ${hosts.length} hosts`);
