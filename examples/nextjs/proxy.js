// Server-side pageviews: every page a browser asks for (not its files, not /analytics) is
// counted as the request arrives; the tracker's pageview of the same view completes it.
import { NextResponse } from "next/server";
import { analytics } from "./lib/tally.js";

export function proxy(request) {
  analytics().count(request);
  return NextResponse.next();
}

export const config = { matcher: ["/((?!analytics|_next/|favicon.ico).*)"] };
