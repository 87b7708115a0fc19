import { DIALECTS, type DialectName } from "./databases.js";
import { transports, type Transport } from "./transports.js";

/** Every transport on every dialect: the API suites run once per cell. */
export interface MatrixCell {
  name: string;
  transport: Transport;
  dialect: DialectName;
  /** Every hit also in ClickHouse, embedded through chDB, which then answers the statistics it counts. */
  clickhouse?: boolean;
}

export const apiMatrix: MatrixCell[] = DIALECTS.flatMap((dialect) =>
  transports.map((transport) => ({ name: `${transport.name} on ${dialect}`, transport, dialect })),
);

/**
 * A suite's cell with ClickHouse beside SQLite (the first transport): chDB opens one data
 * folder a process, so a file has at most one such cell.
 */
export const clickhouseCell: MatrixCell = {
  name: `${transports[0]!.name} on ClickHouse (chDB)`,
  transport: transports[0]!,
  dialect: "sqlite",
  clickhouse: true,
};
