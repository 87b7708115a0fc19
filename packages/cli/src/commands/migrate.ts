import { defineCommand } from "../command.js";

/** `tally migrate` */
export const migrate = defineCommand({
  name: "migrate",
  summary: "create or update the database tables",
  description: "Every command (and tally serve) migrates on its own; this only does that and exits.",
  options: {},
  environment: ["DATABASE_URL"],
  createsDatabase: true,
  async run({ tally, print }) {
    await tally();
    print("The database is up to date.");
  },
});
