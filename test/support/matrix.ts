import { DIALECTS, type DialectName } from "./databases.js";
import { transports, type Transport } from "./transports.js";

/** Every transport on every dialect: the API suites run once per cell. */
export interface MatrixCell {
  name: string;
  transport: Transport;
  dialect: DialectName;
}

export const apiMatrix: MatrixCell[] = DIALECTS.flatMap((dialect) =>
  transports.map((transport) => ({ name: `${transport.name} on ${dialect}`, transport, dialect })),
);
