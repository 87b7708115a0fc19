/** `name=…` for a statistic, with the event and property that `event_property` needs. */
export function statName(name: string): string {
  return name === "event_property" ? "name=event_property&event=Signup&property=plan" : `name=${name}`;
}
