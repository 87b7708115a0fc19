import type { Website, WebsiteInput } from "@tally-analytics/core";
import type { OptionSpecs, OptionValues, Print } from "./command.js";

/** The settings `websites create` and `websites update` take, as in the API (`--exclude-bots` is `exclude_bots`). */
export const WEBSITE_OPTIONS = {
  timezone: { type: "string", value: "TZ", description: "IANA time zone of its days and hours (default UTC)" },
  privacy: { type: "string", value: "0|1|2", description: "share page: 0 public, 1 private (default), 2 password" },
  password: { type: "string", value: "PASSWORD", description: "share-page password (needed for --privacy 2)" },
  "exclude-bots": { type: "string", value: "0|1", description: "1 drops hits of bots and headless browsers (default 1)" },
  "exclude-ips": { type: "string", value: "LIST", description: "comma-separated IPs and CIDRs whose hits are dropped" },
  "exclude-params": { type: "string", value: "LIST", description: "comma-separated query parameters removed from pages (& for all)" },
  "retention-days": { type: "string", value: "DAYS", description: "days the visits behind filtered statistics are kept (default 730)" },
  "page-names": { type: "string", value: "path|route", description: "pages named by URL path (default) or by the app's route template" },
  email: { type: "string", value: "0|1", description: "1 puts it in its account's e-mail reports (default 0)" },
  "include-subdomains": { type: "string", value: "0|1", description: "1 counts hits on its subdomains too (default 0)" },
  json: { type: "boolean", description: "print the website as JSON" },
} as const satisfies OptionSpecs;

/** The same options for `websites update`, whose help names no defaults: an option left out keeps its value. */
export const WEBSITE_UPDATE_OPTIONS = Object.fromEntries(
  Object.entries(WEBSITE_OPTIONS).map(([name, spec]) => [
    name,
    { ...spec, description: spec.description.replace(/ ?\(default[^)]*\)/g, "") },
  ]),
) as unknown as typeof WEBSITE_OPTIONS;

type WebsiteValues = OptionValues<typeof WEBSITE_OPTIONS>;

/** The given settings as the API's fields; core checks each (a ValidationError names the bad ones). */
export function websiteInput(values: WebsiteValues): WebsiteInput {
  const input: Record<string, string> = {};
  for (const option of Object.keys(WEBSITE_OPTIONS) as (keyof WebsiteValues)[]) {
    const value = values[option];
    if (typeof value === "string") input[option.replace(/-/g, "_")] = value;
  }
  return input;
}

/** One line (`Created website 3: example.com, account 1, Europe/Paris`), or the website as JSON with --json. */
export function printWebsite(print: Print, verb: string, website: Website, accountId: number, json: boolean | undefined): void {
  if (json) print(JSON.stringify({ ...website, account_id: accountId }, null, 2));
  else print(`${verb} website ${website.id}: ${website.domain}, account ${accountId}, privacy ${website.privacy}, ${website.timezone}`);
}
