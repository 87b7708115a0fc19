/** Every body Tally's API sends is JSON, and carries its own HTTP status. */
export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

export function json(status: number, payload: object, headers: HeadersInit = {}): Response {
  const response = new Response(JSON.stringify({ ...payload, status }), { status, headers });
  response.headers.set("content-type", JSON_CONTENT_TYPE);
  return response;
}
