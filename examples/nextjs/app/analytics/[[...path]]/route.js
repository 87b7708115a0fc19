// Tally's dashboard, API, tracker and /collect under /analytics.
import { analytics } from "../../../lib/tally.js";

const serve = (request) => analytics().serve(request);

export { serve as GET, serve as HEAD, serve as POST, serve as PUT, serve as PATCH, serve as DELETE, serve as OPTIONS };
