import type { components, operations } from "./api-types.js";

// The API's shapes, from the types generated from its OpenAPI document (api-types.ts).

type Schemas = components["schemas"];
type JsonOf<Operation extends { responses: object }, Status extends keyof Operation["responses"]> = Operation["responses"][Status] extends {
  content: { "application/json": infer Body };
}
  ? Body
  : never;

/** Query values as a caller writes them: numbers where the API reads digits (`per_page: 25`, `page: 2`). */
type Loose<T> = T extends `${infer N extends number}` ? T | N : string extends T ? T | number : T;
type QueryOf<Operation extends { parameters: { query?: object } }> = {
  [K in keyof NonNullable<Operation["parameters"]["query"]>]: Loose<NonNullable<Operation["parameters"]["query"]>[K]>;
};

export type Account = Schemas["Account"];
export type AccountUpdate = Schemas["AccountUpdate"];
export type Website = Schemas["Website"];
export type WebsiteList = Schemas["WebsiteList"];
export type WebsiteDeleted = Schemas["WebsiteDeleted"];
export type WebsiteCreate = Schemas["WebsiteCreate"];
export type WebsiteUpdate = Schemas["WebsiteUpdate"];
export type StatRow = Schemas["StatRow"];
export type StatsPage = Schemas["StatsPage"];
export type DayRange = Schemas["DayRange"];
export type TotalFigures = Schemas["TotalFigures"];
export type Totals = JsonOf<operations["getStatsByIdTotals"], 200>;
export type Realtime = Schemas["Realtime"];
export type Live = Schemas["Live"];
export type Session = Schemas["Session"];
export type SessionHit = Schemas["SessionHit"];
export type SessionsPage = Schemas["SessionsPage"];
export type SessionDetail = Schemas["SessionDetail"]["data"];
export type Funnel = Schemas["Funnel"];
export type FunnelCreate = Schemas["FunnelCreate"];
export type FunnelDeleted = Schemas["FunnelDeleted"];
export type FunnelResult = Schemas["FunnelResult"];
export type FunnelRow = Schemas["FunnelRow"];
export type JourneyResult = Schemas["JourneyResult"];
export type Goal = Schemas["Goal"];
export type GoalCreate = Schemas["GoalCreate"];
export type Annotation = Schemas["Annotation"];
export type AnnotationCreate = Schemas["AnnotationCreate"];
export type AnnotationUpdate = Schemas["AnnotationUpdate"];
export type SavedSegment = Schemas["SavedSegment"];
export type ShareLink = Schemas["ShareLink"];
export type ShareLinkCreate = Schemas["ShareLinkCreate"];
export type SavedSegmentCreate = Schemas["SavedSegmentCreate"];
export type SavedSegmentUpdate = Schemas["SavedSegmentUpdate"];
/** `{ id, object, deleted: true }`: what deleting a goal, an annotation or a segment answers. */
export type Deleted = JsonOf<operations["deleteWebsitesByIdGoalsByGoal"], 200>;
export type JourneyNode = Schemas["JourneyNode"];
export type JourneyLink = Schemas["JourneyLink"];
export type Alert = Schemas["Alert"];
export type AlertCreate = Schemas["AlertCreate"];
export type AlertUpdate = Schemas["AlertUpdate"];
export type AlertDeleted = Schemas["AlertDeleted"];
export type AlertDelivery = Schemas["AlertDelivery"];
export type SharedWebsite = Schemas["SharedWebsite"];
export type ListMeta = Schemas["ListMeta"];
export type Me = Schemas["Me"];
export type User = Schemas["User"];
export type UserUpdate = Schemas["UserUpdate"];
export type Invitation = Schemas["Invitation"];
export type InvitationSent = JsonOf<operations["postUsersInvitations"], 201>["data"];
export type PendingInvitation = Schemas["PendingInvitation"];
export type KeyCreate = Schemas["KeyCreate"];
export type UserKeyListing = Schemas["UserKeyListing"];
export type CreatedKey = JsonOf<operations["postMeKeys"], 201>["data"];
export type TwoFactorSetup = JsonOf<operations["postMeTwoFactor"], 200>["data"];

export type WebsiteListQuery = QueryOf<operations["getWebsites"]>;
/** `name`, `from`, `to`, and optionally search, sorting, paging, `filter` (one or several) and `compare`. */
export type StatsQuery = QueryOf<operations["getStatsById"]>;
export type TotalsQuery = QueryOf<operations["getStatsByIdTotals"]>;
/** `funnel` (its id), `from`, `to`, and optionally `filter` and `compare`. */
export type FunnelQuery = QueryOf<operations["getStatsByIdFunnel"]>;
/** `from`, `to`, and optionally `filter`, `page` and `per_page`. */
export type SessionsQuery = QueryOf<operations["getStatsByIdSessions"]>;
/** `event` (`pageview` for the pageviews' own), `from` and `to`. */
export type PropertyNamesQuery = QueryOf<operations["getStatsByIdProperties"]>;
/** `from` and `to` (`Y-m-d`), both optional. */
export type AnnotationListQuery = QueryOf<operations["getWebsitesByIdAnnotations"]>;
/** `from_page` or `from_event`, `from`, `to`, and optionally `direction`, `depth`, `filter` and `compare`. */
export type JourneyQuery = QueryOf<operations["getStatsByIdJourney"]>;
/** `alert` (one rule's) and `limit` (1 to 200, default 50). */
export type AlertDeliveriesQuery = QueryOf<operations["getWebsitesByIdAlertDeliveries"]>;
/** What the statistic names are: `page`, `referrer`, `visitors`… */
export type StatName = StatsQuery["name"];
