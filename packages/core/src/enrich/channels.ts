import { categoryOf } from "./sources.js";

/**
 * A visit's channel by Plausible's published rules (docs/statistics.md, "Channel";
 * Plausible's lib/plausible/ingestion/acquisition.ex): the first rule that holds wins.
 */
export interface ChannelInput {
  /** The visit's source (enrich/sources.ts). */
  source: string;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  /** The page URL's ad click id: `gclid`, `msclkid` or "". */
  clickId: string;
}

const PAID_MEDIUM = /^(.*cp.*|ppc|retargeting|paid.*)$/;
const SHOPPING_CAMPAIGN = /^(.*(([^a-df-z]|^)shop|shopping).*)$/;
/** `utm_source`s that say paid whatever the medium (Plausible: `adwords` and tags ending in `ad` or `ads`). */
const PAID_SOURCE = /^(adwords|.*[^a-z]ads?|ads?)$/;
const DISPLAY_MEDIUMS = ["display", "banner", "expandable", "interstitial", "cpm"];
const SOCIAL_MEDIUMS = ["social", "social-network", "social-media", "sm", "social network", "social media"];
const EMAIL_TAGS = ["email", "e-mail", "e_mail", "e mail", "newsletter"];

/** The click ids that make a visit from Google or Bing paid search. */
export function clickIdOf(url: URL): string {
  if (!/gclid|msclkid/.test(url.search)) return "";
  return url.searchParams.has("gclid") ? "gclid" : url.searchParams.has("msclkid") ? "msclkid" : "";
}

const includesAny = (text: string, parts: readonly string[]) => parts.some((part) => text.includes(part));

/** One of 19 channels: the 17 and Plausible's `Paid Other` and `Mobile Push Notifications`. */
export function channelOf(input: ChannelInput): string {
  const source = input.source.toLowerCase();
  const medium = input.utmMedium.toLowerCase();
  const campaign = input.utmCampaign.toLowerCase();
  const tagged = input.utmSource.toLowerCase();
  const category = categoryOf(source);
  const paidMedium = PAID_MEDIUM.test(medium);
  const paid = paidMedium || PAID_SOURCE.test(tagged);
  const shopping = category === "shopping" || SHOPPING_CAMPAIGN.test(campaign);

  if (campaign.includes("cross-network")) return "Cross-network";
  if (shopping && paidMedium) return "Paid Shopping";
  if (
    (category === "search" && paid) ||
    (source === "google" && input.clickId === "gclid") ||
    (source === "bing" && input.clickId === "msclkid")
  )
    return "Paid Search";
  if (category === "social" && paid) return "Paid Social";
  if (category === "video" && paid) return "Paid Video";
  if (DISPLAY_MEDIUMS.includes(medium)) return "Display";
  if (paidMedium) return "Paid Other";
  if (shopping) return "Organic Shopping";
  if (category === "social" || SOCIAL_MEDIUMS.includes(medium)) return "Organic Social";
  if (category === "video" || medium.includes("video")) return "Organic Video";
  if (category === "ai") return "AI Assistants";
  if (category === "search") return "Organic Search";
  if (category === "email" || includesAny(tagged, EMAIL_TAGS) || includesAny(medium, EMAIL_TAGS)) return "Email";
  if (medium === "affiliate") return "Affiliates";
  if (medium === "audio") return "Audio";
  if (tagged === "sms" || medium === "sms") return "SMS";
  if (medium.endsWith("push") || includesAny(medium, ["mobile", "notification"]) || source === "firebase")
    return "Mobile Push Notifications";
  if (["referral", "app", "link"].includes(medium) || source !== "") return "Referral";
  return "Direct";
}
