import { isInDomain } from "../shared/calendar.js";
import { ValidationError } from "../shared/errors.js";

/** `from` and `to` of an import or export: real days, in order (422 otherwise). */
export function checkDayRange(range: { from?: string | undefined; to?: string | undefined }): void {
  for (const field of ["from", "to"] as const) {
    const day = range[field];
    if (day !== undefined && !isInDomain(day)) throw ValidationError.field(field, `The ${field} day must be a date such as 2024-01-31.`);
  }
  if (range.from !== undefined && range.to !== undefined && range.from > range.to)
    throw ValidationError.field("from", "The from day must not be after the to day.");
}
