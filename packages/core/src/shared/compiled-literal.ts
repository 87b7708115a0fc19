/**
 * A function that returns one object literal, `{ name: expression, … }`, over `parameters`.
 * The write path builds an object per hit whose keys come from the dimension registry;
 * assigning twenty computed keys one by one costs about fifteen times more than a literal,
 * which gets its whole shape at once. Names and expressions come from the registry and
 * the caller's code, never from input: each name must be a plain identifier.
 */
const checkName = (name: string) => {
  if (!/^[a-z_][a-z0-9_]*$/i.test(name)) throw new Error(`${name} is not a plain name.`);
};

export function compileLiteral<F extends (...args: never[]) => unknown>(
  parameters: readonly string[],
  fields: readonly (readonly [name: string, expression: string])[],
): F {
  for (const [name] of fields) checkName(name);
  return new Function(...parameters, `return { ${fields.map(([name, expression]) => `${name}: ${expression}`).join(", ")} };`) as F;
}

/**
 * A function that hands `visit` each of an object's fields named by `paths` (`kind`,
 * `values.page`), in order. Reading fields by computed names (`object[name]` in a loop)
 * makes every read a generic lookup; here each is a plain property read. The same rule
 * as above: names come from the registry and the caller's code, each a plain identifier.
 */
export function compileFieldVisitor<T>(paths: readonly string[]): (object: T, visit: (value: unknown) => void) => void {
  for (const path of paths) path.split(".").forEach(checkName);
  return new Function("object", "visit", paths.map((path) => `visit(object.${path});`).join("\n")) as (
    object: T,
    visit: (value: unknown) => void,
  ) => void;
}

/**
 * A function that returns an object's fields `names` as one array, in order (`row.a ?? orElse`
 * when `orElse` is given): a row's statement parameters without a generic lookup per column.
 * Names come from the caller's code, each a plain identifier.
 */
export function compileFieldList<T>(names: readonly string[], orElse?: number): (object: T) => unknown[] {
  names.forEach(checkName);
  const read = (name: string) => (orElse === undefined ? `object.${name}` : `object.${name} ?? ${orElse}`);
  return new Function("object", `return [${names.map(read).join(", ")}];`) as (object: T) => unknown[];
}
