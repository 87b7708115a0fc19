import type { Command } from "../command.js";
import { alertsAdd } from "./alerts-add.js";
import { alertsDelete } from "./alerts-delete.js";
import { alertsDeliveries } from "./alerts-deliveries.js";
import { alertsList } from "./alerts-list.js";
import { alertsUpdate } from "./alerts-update.js";
import { copyCommand } from "./copy.js";
import { exportCommand } from "./export.js";
import { importCommand } from "./import.js";
import { keysCreate } from "./keys-create.js";
import { keysRevoke } from "./keys-revoke.js";
import { mcpCommand } from "./mcp.js";
import { migrate } from "./migrate.js";
import { reportsSend } from "./reports-send.js";
import { reportsSet } from "./reports-set.js";
import { serveCommand } from "./serve.js";
import { usersAdd } from "./users-add.js";
import { usersList } from "./users-list.js";
import { usersRemove } from "./users-remove.js";
import { usersResetTwoFactor } from "./users-reset-2fa.js";
import { usersRole } from "./users-role.js";
import { websitesCreate } from "./websites-create.js";
import { websitesDelete } from "./websites-delete.js";
import { websitesList } from "./websites-list.js";
import { websitesUpdate } from "./websites-update.js";

/**
 * Every `tally` command, in the order `tally --help` lists them. A new command is a
 * file in this folder exporting `defineCommand({ name, summary, arguments, options, run })`,
 * added here once: parsing, --help, usage errors and closing the database come with it.
 */
export const COMMANDS: readonly Command[] = [
  serveCommand,
  mcpCommand,
  migrate,
  keysCreate,
  keysRevoke,
  usersAdd,
  usersList,
  usersRole,
  usersRemove,
  usersResetTwoFactor,
  websitesList,
  websitesCreate,
  websitesUpdate,
  websitesDelete,
  reportsSend,
  reportsSet,
  alertsList,
  alertsAdd,
  alertsUpdate,
  alertsDelete,
  alertsDeliveries,
  importCommand,
  exportCommand,
  copyCommand,
];
