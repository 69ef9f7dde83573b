#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 --no-parallel-scavenge --heap-growing-percent=25 --expose-gc
// `npx errata …` / `npm run errata -- …`: the bundled CLI when built, else the TypeScript source.
import fs from "node:fs";
import { fileURLToPath } from "node:url";

const bundled = fileURLToPath(new URL("../dist/cli.mjs", import.meta.url));
if (fs.existsSync(bundled)) {
  const { main } = await import(bundled);
  await main(process.argv);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../src/cli/main.ts");
  await main(process.argv);
}
