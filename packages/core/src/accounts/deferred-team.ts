import type { Team } from "./team.js";

/** The async methods of the Team, without its services. */
export type TeamFlows = Omit<Team, "users" | "sessions" | "tokens" | "twoFactor" | "attempts">;

/**
 * The Team a Tally hands out before its store is open: each service deferred on its own
 * (`defer` makes an object's methods wait for the store), the flows through one deferred
 * object set as the prototype, so `team.signIn` and `team.users.add` both wait.
 */
export function deferTeam(defer: <T extends object>(pick: (team: Team) => T) => T): Team {
  const services = {
    users: defer((t) => t.users),
    sessions: defer((t) => t.sessions),
    tokens: defer((t) => t.tokens),
    twoFactor: defer((t) => t.twoFactor),
    attempts: defer((t) => t.attempts),
  };
  return Object.assign(Object.create(defer((t): TeamFlows => t)) as TeamFlows, services);
}
