/**
 * The URL of a worker script beside this module. Workers run compiled JavaScript;
 * under a TypeScript test runner this module is `src/…ts`, so the compiled file in
 * `dist/` is used (`pnpm build` makes it).
 */
export function workerUrl(file: string): URL {
  const url = new URL(`./${file}`, import.meta.url);
  return import.meta.url.endsWith(".ts") ? new URL(url.href.replace(/\/src\/(?=backends\/)/, "/dist/")) : url;
}
