/**
 * How one column of a day block is stored: a 16-byte header, then either a sorted table
 * of the column's distinct values (32-bit integers, or 64-bit floats where they do not
 * fit) and one small index per row (1, 2 or 4 bytes: most columns hold a few hundred
 * distinct dictionary ids), or the values themselves as 32-bit integers when the
 * distinct values are too many to be worth a table.
 */

/** A decoded column: row `i` is `values[index[i]]`, or `index[i]` itself when `values` is null. */
export interface Column {
  readonly length: number;
  readonly values: Float64Array | Int32Array | null;
  readonly index: Uint8Array | Uint16Array | Uint32Array | Int32Array;
}

const HEADER = 16;
const DICTIONARY = 0;
const RAW = 1;
const INT32_DICTIONARY = 2;

const widthFor = (distinct: number) => (distinct <= 0x100 ? 1 : distinct <= 0x10000 ? 2 : 4);

function indexArray(buffer: ArrayBuffer, offset: number, length: number, width: number) {
  if (width === 1) return new Uint8Array(buffer, offset, length);
  if (width === 2) return new Uint16Array(buffer, offset, length);
  return new Uint32Array(buffer, offset, length);
}

export function encodeColumn(data: readonly number[]): Uint8Array {
  const distinct = [...new Set(data)].sort((a, b) => a - b);
  const width = widthFor(distinct.length);
  const fitsInt32 = distinct.every((value) => Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff);
  const valueBytes = fitsInt32 ? 4 : 8;
  const dictionaryBytes = distinct.length * valueBytes + data.length * width;
  const raw = fitsInt32 && dictionaryBytes > data.length * 4;
  const valuesBytes = raw ? 0 : Math.ceil((distinct.length * valueBytes) / 8) * 8;
  const rowBytes = data.length * (raw ? 4 : width);
  const buffer = new ArrayBuffer(HEADER + valuesBytes + Math.ceil(rowBytes / 8) * 8);
  const header = new DataView(buffer);
  header.setUint8(0, raw ? RAW : fitsInt32 ? INT32_DICTIONARY : DICTIONARY);
  header.setUint8(1, raw ? 4 : width);
  header.setUint32(4, data.length, true);
  header.setUint32(8, raw ? 0 : distinct.length, true);
  if (raw) {
    new Int32Array(buffer, HEADER, data.length).set(data);
  } else {
    (fitsInt32 ? new Int32Array(buffer, HEADER, distinct.length) : new Float64Array(buffer, HEADER, distinct.length)).set(distinct);
    const position = new Map(distinct.map((value, i) => [value, i]));
    const index = indexArray(buffer, HEADER + valuesBytes, data.length, width);
    for (let i = 0; i < data.length; i++) index[i] = position.get(data[i]!)!;
  }
  return new Uint8Array(buffer);
}

export function decodeColumn(bytes: Uint8Array): Column {
  // Typed arrays need aligned offsets: a driver's buffer that starts anywhere else is copied.
  let buffer = bytes.buffer as ArrayBuffer;
  let base = bytes.byteOffset;
  if (base % 8 !== 0) {
    buffer = new ArrayBuffer(bytes.byteLength);
    new Uint8Array(buffer).set(bytes);
    base = 0;
  }
  const header = new DataView(buffer, base);
  const kind = header.getUint8(0);
  const width = header.getUint8(1);
  const length = header.getUint32(4, true);
  const distinct = header.getUint32(8, true);
  if (kind === RAW) return { length, values: null, index: new Int32Array(buffer, base + HEADER, length) };
  const values =
    kind === INT32_DICTIONARY ? new Int32Array(buffer, base + HEADER, distinct) : new Float64Array(buffer, base + HEADER, distinct);
  const valuesBytes = Math.ceil((distinct * values.BYTES_PER_ELEMENT) / 8) * 8;
  return { length, values, index: indexArray(buffer, base + HEADER + valuesBytes, length, width) };
}

/** Row `i`'s value. */
export const valueAt = (column: Column, i: number): number => (column.values ? column.values[column.index[i]!]! : column.index[i]!);

/**
 * The column as a table of distinct values and an index per row, whatever way it was
 * stored: what matching and counting by value work on.
 */
export function asDictionary(column: Column): { values: Float64Array | Int32Array; index: ArrayLike<number> } {
  if (column.values) return { values: column.values, index: column.index };
  const position = new Map<number, number>();
  const index = new Uint32Array(column.length);
  for (let i = 0; i < column.length; i++) {
    const value = column.index[i]!;
    let at = position.get(value);
    if (at === undefined) position.set(value, (at = position.size));
    index[i] = at;
  }
  return { values: Float64Array.from(position.keys()), index };
}
