#!/usr/bin/env node
// The npm registry this project is developed against serves only the Linux builds of packages that
// ship per-platform binaries (biome, next/swc, tailwind oxide, rollup), so `npm install` here writes a
// lock without the other platforms' optional entries and `npm ci` then refuses the lock everywhere.
// This adds each missing optional entry with the os/cpu/libc its name declares; npm skips them on
// platforms they are not for and fetches them where they are. Run after `npm install` changes the lock.
import fs from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(fs.readFileSync(file, "utf8"));
const OS = {
  android: "android",
  darwin: "darwin",
  win32: "win32",
  freebsd: "freebsd",
  openbsd: "openbsd",
  linux: "linux",
  openharmony: "openharmony",
};
const CPU = {
  arm64: "arm64",
  x64: "x64",
  ia32: "ia32",
  arm: "arm",
  loong64: "loong64",
  ppc64: "ppc64",
  riscv64: "riscv64",
  s390x: "s390x",
  wasm32: "wasm32",
};

function platformOf(name) {
  const parts = name.split("/").pop().split("-");
  const os = parts.find((p) => OS[p]);
  const cpu = parts.find((p) => CPU[p]);
  const entry = {};
  if (os) entry.os = [os];
  if (cpu) entry.cpu = [cpu];
  if (parts.some((p) => p.startsWith("musl"))) entry.libc = ["musl"];
  else if (os === "linux" && parts.some((p) => p.startsWith("gnu"))) entry.libc = ["glibc"];
  return entry;
}

let added = 0;
for (const [, pkg] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key]) continue;
    const platform = platformOf(name);
    if (!platform.os && !platform.cpu) continue; // not a platform build: leave it to npm
    lock.packages[key] = { version, optional: true, ...platform };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))));
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`lock-platforms: added ${added} optional platform entries`);
