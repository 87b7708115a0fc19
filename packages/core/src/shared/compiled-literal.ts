/**
 * A function that returns one object literal, `{ name: expression, … }`, over `parameters`.
 * The write path builds an object per hit whose keys come from the dimension registry;
 * assigning twenty computed keys one by one costs about fifteen times more than a literal,
 * which gets its whole shape at once. Names and expressions come from the registry and
 * the caller's code, never from input: each name must be a plain identifier.
 */
export function compileLiteral<F extends (...args: never[]) => unknown>(
  parameters: readonly string[],
  fields: readonly (readonly [name: string, expression: string])[],
): F {
  for (const [name] of fields) if (!/^[a-z_][a-z0-9_]*$/i.test(name)) throw new Error(`${name} is not a plain name.`);
  return new Function(...parameters, `return { ${fields.map(([name, expression]) => `${name}: ${expression}`).join(", ")} };`) as F;
}
