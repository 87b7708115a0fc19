// Placeholder until the tracker is written: emits an empty script so the workspace builds.
import { mkdirSync, writeFileSync } from "node:fs";
mkdirSync(new URL("./dist/", import.meta.url), { recursive: true });
writeFileSync(new URL("./dist/index.js", import.meta.url), 'export const trackerScript = "";\n');
writeFileSync(new URL("./dist/index.d.ts", import.meta.url), "export declare const trackerScript: string;\n");
