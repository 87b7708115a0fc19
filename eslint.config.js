// ESLint (`pnpm lint`, part of the test command): the recommended rules of JavaScript and
// typescript-eslint, and the few habits docs/architecture.md and the style guide ask for.
// Formatting is Prettier's (`.prettierrc.json`), not ESLint's.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "packages/client/src/api-types.ts",
      "bench/results.json",
      "examples/**/data/**",
      "docs/.vitepress/cache/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      // A variable assigned once later, but read before (by a closure), stays `let`.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      // Cleaning control characters out of input is what these patterns are for.
      "no-control-regex": "off",
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              regex:
                "^(fs|path|os|url|crypto|http|https|net|zlib|stream|worker_threads|child_process|events|util|readline|timers|assert)(/|$)",
              message: "Use the node: prefix.",
            },
          ],
        },
      ],
    },
  },
  {
    // The tracker is written for its gzip size (an IIFE of short expressions, empty catches for
    // browsers that refuse storage or beacons), as Plausible's is.
    files: ["packages/tracker/src/**/*.ts"],
    rules: { "@typescript-eslint/no-unused-expressions": "off", "no-empty": "off", "prefer-rest-params": "off" },
  },
  {
    files: ["**/*.mjs", "**/*.js", "**/*.cjs"],
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        Buffer: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        setInterval: "readonly",
        clearInterval: "readonly",
        performance: "readonly",
        fetch: "readonly",
        Request: "readonly",
        Response: "readonly",
        Headers: "readonly",
        window: "readonly",
        document: "readonly",
        navigator: "readonly",
        module: "writable",
        require: "readonly",
        __dirname: "readonly",
      },
    },
  },
);
