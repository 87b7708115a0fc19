/**
 * Client addresses and IP rules, for the server's answer to a hit: what that path needs of
 * core beside the public API, without loading the rest of `./internal` (its schemas, the
 * statistics) into an app that only collects. Not a stable interface.
 */
export { addressKey, ipVersion, stripMapped } from "./shared/client-address.js";
export { compileIpRules } from "./shared/exclusion-lists.js";
