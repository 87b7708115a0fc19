// The API reference of docs/api.md, rendered at build time from the OpenAPI document the
// server builds from its route table, by the same renderer as a running Tally's
// `{base}/api/docs` page: the two cannot say different things.
import { openApiDocument, renderReference } from "@tally-analytics/server/internal";

export default {
  load() {
    const { intro, content } = renderReference(openApiDocument());
    return `${intro}\n${content}`;
  },
};
