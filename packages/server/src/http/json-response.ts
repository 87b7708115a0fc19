/** Every body Tally's API sends is JSON, and carries its own HTTP status. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** On every answer: a browser never reads one as another type than it says (a script, a page). */
export const NOSNIFF = { "x-content-type-options": "nosniff" } as const;

export function json(status: number, payload: object, headers: HeadersInit = {}): Response {
  return plainJson(status, { ...payload, status }, headers);
}

/** JSON exactly as given, without `status`: the answers of other tools' APIs (Plausible's Stats API). */
export function plainJson(status: number, payload: object, headers: HeadersInit = {}): Response {
  const response = new Response(JSON.stringify(payload), { status, headers });
  response.headers.set("content-type", JSON_CONTENT_TYPE);
  response.headers.set("x-content-type-options", NOSNIFF["x-content-type-options"]);
  return response;
}
