#!/usr/bin/env node
// Production build: the Next.js app (.next/) and the custom server + worker bundled by esbuild
// (dist/). `npm start` runs this when the build is missing or older than the sources.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.chdir(root);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

// Several developers (or test runs) may build the same checkout at once; Next refuses concurrent
// builds, so take a simple directory lock (stale after 10 minutes).
const lock = path.join(root, ".next-build.lock");
for (;;) {
  try {
    fs.mkdirSync(lock);
    break;
  } catch {
    const age = Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 10 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
    else await new Promise((r) => setTimeout(r, 500));
  }
}
const release = () => fs.rmSync(lock, { recursive: true, force: true });
process.on("exit", release);

const started = Date.now();
const next = spawnSync(process.execPath, [path.join(root, "node_modules/next/dist/bin/next"), "build"], { stdio: "inherit", env });
if (next.status !== 0) {
  console.error("next build failed");
  process.exit(next.status ?? 1);
}

await build({
  entryPoints: { cli: "src/cli/main.ts", worker: "src/pipeline/worker-thread.ts", "bundle-thread": "src/server/releases/bundle-thread.ts" },
  outdir: "dist",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  logLevel: "warning",
});
fs.writeFileSync(path.join(root, "dist", ".build-stamp"), String(Date.now()));
console.log(`Build finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
