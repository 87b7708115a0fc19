/**
 * Browser, OS and device names of other tools, turned into the names Tally counts
 * (ua-parser-js 1.x: `Chrome`, `Mobile Safari`, `Mac OS`, `Windows`…), so imported and
 * live figures land on the same rows. Unknown names are kept as they are.
 */

/** Umami's browser keys (detect-browser). */
const UMAMI_BROWSERS: Readonly<Record<string, string>> = {
  android: "Android Browser",
  aol: "AOL",
  bb10: "BlackBerry",
  beaker: "Beaker",
  chrome: "Chrome",
  "chromium-webview": "Chrome WebView",
  crios: "Chrome",
  edge: "Edge",
  "edge-chromium": "Edge",
  "edge-ios": "Edge",
  facebook: "Facebook",
  firefox: "Firefox",
  fxios: "Firefox",
  ie: "IE",
  instagram: "Instagram",
  ios: "Mobile Safari",
  "ios-webview": "WebKit",
  kakaotalk: "KakaoTalk",
  miui: "MIUI Browser",
  opera: "Opera",
  "opera-mini": "Opera Mini",
  safari: "Safari",
  samsung: "Samsung Internet",
  silk: "Silk",
  yandexbrowser: "Yandex",
};

/** Umami's browser keys that are bots or tools, not people. */
export const UMAMI_BOT_BROWSERS: ReadonlySet<string> = new Set(["searchbot", "curl", "phantomjs"]);

/** Operating systems by the name other tools give them (version dropped first). */
const SYSTEMS: Readonly<Record<string, string>> = {
  "android os": "Android",
  "chrome os": "Chromium OS",
  chromeos: "Chromium OS",
  macos: "Mac OS",
  "mac os": "Mac OS",
  "mac os x": "Mac OS",
  "open bsd": "OpenBSD",
  "sun os": "Solaris",
  "blackberry os": "BlackBerry",
  "windows mobile": "Windows Mobile",
  "windows phone": "Windows Phone",
};

const MOBILE_SYSTEMS: ReadonlySet<string> = new Set(["Android", "iOS", "BlackBerry", "Windows Phone", "Windows Mobile"]);
const DESKTOP_SYSTEMS: ReadonlySet<string> = new Set([
  "Windows",
  "Mac OS",
  "Linux",
  "Chromium OS",
  "Ubuntu",
  "Debian",
  "Fedora",
  "FreeBSD",
  "OpenBSD",
]);

const VERSION = /\s+v?([\d._]+)[a-z]?$/i;
const withoutVersion = (name: string) => name.trim().replace(VERSION, "");

/** Tally's name with the first `parts` numbers of the version the text ends in (`macOS 14.1`, `Chrome 120`); "" without one. */
export function withVersionOf(name: string, text: string, parts: number): string {
  const numbers = VERSION.exec(text.trim())?.[1]
    ?.split(/[._]/)
    .filter((part) => part !== "")
    .slice(0, parts)
    .join(".");
  return name === "" || !numbers ? "" : `${name} ${numbers}`;
}

export function umamiBrowser(key: string): string {
  const name = key.trim();
  return UMAMI_BROWSERS[name.toLowerCase()] ?? name;
}

/** An OS name as Umami (`Windows 10`, `Android OS`) or GoatCounter (`macOS 10.15`) writes it. */
export function systemName(text: string): string {
  const name = withoutVersion(text);
  if (/^windows(?! (mobile|phone))/i.test(name)) return "Windows";
  return SYSTEMS[name.toLowerCase()] ?? name;
}

/** GoatCounter's `Chrome 86`, `Safari 14.0`. */
export function browserName(text: string): string {
  return withoutVersion(text);
}

/** Umami's `laptop` is a desktop by screen width: Tally has no such kind. */
export function umamiDevice(device: string): string {
  const name = device.trim().toLowerCase();
  return name === "laptop" ? "desktop" : name;
}

/** Without a user agent (GoatCounter's newer exports), the device kind the OS implies. */
export function deviceOfSystem(os: string): string {
  if (MOBILE_SYSTEMS.has(os)) return "mobile";
  return DESKTOP_SYSTEMS.has(os) ? "desktop" : "";
}

/** Tally ↔ Plausible, one to one both ways, so a round trip through Plausible's layout keeps every name. */
const TO_PLAUSIBLE: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  browser: { Edge: "Microsoft Edge", "Samsung Internet": "Samsung Browser" },
  os: { "Mac OS": "Mac", Linux: "GNU/Linux", "Chromium OS": "Chrome OS" },
};
const FROM_PLAUSIBLE = Object.fromEntries(
  Object.entries(TO_PLAUSIBLE).map(([kind, names]) => [
    kind,
    Object.fromEntries(Object.entries(names).map(([tally, plausible]) => [plausible, tally])),
  ]),
) as Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Plausible writes `(not set)` for unknown values; Tally leaves them out. */
const NOT_SET = "(not set)";

export function toPlausibleName(kind: "browser" | "os" | "device", value: string): string {
  if (kind === "device") return value.charAt(0).toUpperCase() + value.slice(1);
  return TO_PLAUSIBLE[kind]?.[value] ?? value;
}

export function fromPlausibleName(kind: "browser" | "os" | "device", value: string): string {
  if (value === NOT_SET) return "";
  if (kind === "device") return value.toLowerCase();
  return FROM_PLAUSIBLE[kind]?.[value] ?? value;
}
