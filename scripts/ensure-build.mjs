// Builds when the production build is missing or older than the sources (shared by start and test).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

function newestMtime(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

export function ensureBuild() {
  const stamp = path.join(root, "dist", ".build-stamp");
  const built = fs.existsSync(stamp) && fs.existsSync(path.join(root, ".next", "BUILD_ID"));
  const inputs = ["src", "next.config.mjs", "package.json"].map((p) => path.join(root, p)).filter((p) => fs.existsSync(p));
  const newest = Math.max(...inputs.map((p) => (fs.statSync(p).isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs)));
  if (built && newest <= Number(fs.readFileSync(stamp, "utf8"))) return;
  console.log(built ? "Sources changed since the last build; rebuilding…" : "No build yet: building Errata (about a minute)…");
  const r = spawnSync(process.execPath, [path.join(root, "scripts", "build.mjs")], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
