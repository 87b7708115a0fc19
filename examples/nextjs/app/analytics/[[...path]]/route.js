// Tally's dashboard, API, tracker and /collect under /analytics: the mount is this folder.
import { analytics } from "../../../lib/tally.js";

async function serve(request, context) {
  const { routes, ready } = analytics();
  await ready;
  return routes[request.method](request, context);
}

export { serve as GET, serve as HEAD, serve as POST, serve as PUT, serve as PATCH, serve as DELETE, serve as OPTIONS };
