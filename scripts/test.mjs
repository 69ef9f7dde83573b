#!/usr/bin/env node
// `npm test`: the whole suite — unit, integration (SQLite and PostgreSQL, official SDKs and CLIs as
// clients) and browser tests in Chromium — against a fresh production build.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ensureBuild, root } from "./ensure-build.mjs";

const chromium = process.env.ERRATA_CHROMIUM ?? "/usr/bin/chromium";
if (!fs.existsSync(chromium)) {
  if (process.env.CI === "true") {
    console.error(`Chromium is required for the browser tests under CI but ${chromium} is missing (apt-get install -y chromium).`);
    process.exit(1);
  }
  console.warn(`\n!! ${chromium} is missing: browser tests will be skipped. Install it with: apt-get install -y chromium\n`);
}

ensureBuild();
const args = process.argv.slice(2);
const only = args.indexOf("--only");
const projects = only >= 0 ? ["--project", args[only + 1]] : [];
const rest = only >= 0 ? args.filter((_, i) => i !== only && i !== only + 1) : args;
const r = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", ...projects, ...rest], {
  stdio: "inherit",
  cwd: root,
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});
process.exit(r.status ?? 1);
