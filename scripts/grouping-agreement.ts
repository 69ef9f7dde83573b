/**
 * Grouping agreement with Sentry (issue 29): runs Errata's normaliser + grouping (as the digest does: Next.js rules, then groupEvent) on each
 * input in <dir>/inputs and compares the winning variant and the contributing frames with the
 * expectation written from Sentry's newstyle:2023-01-11 snapshot in <dir>/expected.
 *
 * Usage: npx tsx scripts/grouping-agreement.ts <dir> [version] [-v]
 *
 * <dir> holds inputs/<name>.json (events) and expected/<name>.json:
 *   { "variant": "app" | "system" | "default" | "fingerprint" | "fallback",
 *     "frames": [[module, function, filename, context_line?], …],  // the winning variant's
 *     "platform"?: string }                                        // contributing frames
 * written from Sentry's grouping snapshots. Sentry's fixtures are a hold-out: keep them outside
 * the repository; this script is not part of the tests.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { GROUPING_VERSIONS, groupEvent } from "../src/core/grouping/index";
import { annotateNextjs } from "../src/core/nextjs/index";
import { normalizeEvent } from "../src/core/normalize-event";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: npx tsx scripts/grouping-agreement.ts <dir> [version] [-v]");
  process.exit(2);
}
const version = process.argv[3]?.startsWith("v") ? process.argv[3] : "v3";
const verbose = process.argv.includes("-v");
const sha = (s: string) => createHash("sha256").update(s).digest("hex");
const ctx = { receivedAt: Date.UTC(2026, 10, 27), clientIp: null, eventId: "0".repeat(32) };

type Tuple = [string | null, string | null, string | null, string?];
interface Expected {
  variant: string;
  frames: Tuple[];
  platform?: string;
}

function digest(raw: unknown) {
  const e = normalizeEvent(structuredClone(raw), ctx);
  annotateNextjs(e);
  const res = groupEvent(e, version, sha);
  const algo = GROUPING_VERSIONS[version];
  const key = algo?.key(e, algo.stackRules ? { stackRules: [] } : undefined);
  return { e, res, key };
}

const ORDER: Record<string, number> = { module: 0, filename: 1, function: 2, context: 3 };

/** Contributing frames of the winning variant, from its key (`label=value` parts in frame order). */
function framesOf(key: string): Tuple[] {
  const out: Tuple[] = [];
  let cur: Tuple | null = null;
  let last = -1;
  for (const part of key.split("\u001f")) {
    const m = /^(module|filename|function|context)=(.*)$/s.exec(part);
    if (!m) continue;
    const o = ORDER[m[1] as string] as number;
    if (!cur || o <= last) {
      cur = [null, null, null];
      out.push(cur);
    }
    if (o === 3) cur[3] = m[2];
    else cur[o === 0 ? 0 : o === 1 ? 2 : 1] = m[2] as string;
    last = o;
  }
  return out;
}

const variantName = (name: string | undefined, source: string) => {
  if (source === "fingerprint") return "fingerprint";
  if (name === "exception") return "app";
  if (name === "custom-fingerprint") return "fingerprint";
  if (name === "message") return "default";
  return name ?? "?";
};

const norm = (t: Tuple) => JSON.stringify([t[0], t[1], t[2]?.toLowerCase() ?? null, t[3] ?? null]);

// Copies that differ only in what Sentry cleans: they must join their original.
const COPIES: Record<string, (s: string) => string> = {
  "frame-ignores-javassist-2": (s) => s.replace("javassist_74", "javassist_1207"),
  "frame-ignores-javassist-3": (s) => s.replaceAll("javassist_seam_74", "javassist_seam_9"),
  "frame-ignores-ENHANCED-enhancer-by-classes": (s) => s.replace("ae46b1bf", "0c1d2e3f"),
  "frame-ignores-ENHANCED-fast-class-by-classes": (s) => s.replace("ae46b1bf", "77aa88bb"),
  "frame-ignores-ENHANCED-spring-classes": (s) => s.replace("1ebdddb0", "deadbeef"),
  "frame-ignores-extra-ENHANCED-enhancer-by-classes": (s) => s.replace("ae46b1bf", "11111111").replace("caceacd2", "22222222"),
  "frame-ignores-hibernate-classes": (s) => s.replace("oRWxjAWT", "Qz81pLmN"),
  "frame-ignores-sun-java-generated-constructors": (s) => s.replace("Accessor1", "Accessor57"),
  "frame-ignores-sun-java-generated-methods": (s) => s.replaceAll("12345", "8"),
  "frame-comput-hashes-ignores-ENHANCED-clojure-classes": (s) => s.replace("fn__1539", "fn__2001"),
  "frame-ignores-java8-lambda-function": (s) => s.replace("lambda$main$1", "lambda$main$7"),
  "frame-ignores-java8-lambda-module": (s) => s.replace("$$Lambda$40/1673859467", () => "$$Lambda$41/0x0000000800c02a00"),
  "frame-sanitizes-erb-templates": (s) => s.replace("__3327151541118998292_70361296749460", "__1183719247893810_70345622771000"),
};

const files = fs
  .readdirSync(path.join(dir, "inputs"))
  .filter((f) => f.endsWith(".json"))
  .sort();
const byPlatform = new Map<string, { n: number; variant: number; frames: number; framesN: number }>();
let variantOk = 0;
let framesOk = 0;
let framesN = 0;
const copyResults: string[] = [];
const hashes = new Map<string, string>();
for (const f of files) {
  const name = f.replace(/\.json$/, "");
  const rawText = fs.readFileSync(path.join(dir, "inputs", f), "utf8");
  const raw = JSON.parse(rawText);
  const exp = JSON.parse(fs.readFileSync(path.join(dir, "expected", f), "utf8")) as Expected;
  const { res, key } = digest(raw);
  const platform = exp.platform ?? raw.platform ?? "?";
  const stat = byPlatform.get(platform) ?? { n: 0, variant: 0, frames: 0, framesN: 0 };
  stat.n++;
  const won = variantName(res.variants[0], res.source);
  // Sentry names the no-stack exception variant "app" or, when app and system agree, "default".
  const vOk = won === exp.variant || (won === "app" && res.variants[0] === "exception" && exp.variant === "default");
  if (vOk) {
    variantOk++;
    stat.variant++;
  }
  let fOk: boolean | undefined;
  let got: Tuple[] = [];
  if (exp.frames.length > 0) {
    const winner = key?.variants?.find((v) => v.name === res.variants[0]) ?? key?.variants?.[0];
    got = framesOf(winner?.key ?? "");
    fOk = got.length === exp.frames.length && got.every((t, i) => norm(t) === norm(exp.frames[i] as Tuple));
    framesN++;
    stat.framesN++;
    if (fOk) {
      framesOk++;
      stat.frames++;
    }
  }
  byPlatform.set(platform, stat);
  const h = res.hashes[0] ?? "";
  const other = hashes.get(h);
  hashes.set(h, other ? `${other},${name}` : name);
  console.log(
    `${vOk ? "ok " : "BAD"} variant ${won.padEnd(11)} (sentry ${exp.variant.padEnd(11)})  frames ${fOk === undefined ? "-  " : fOk ? "ok " : "BAD"}  ${platform.padEnd(10)} ${name}`,
  );
  if (fOk === false && verbose) {
    const n = Math.max(got.length, exp.frames.length);
    for (let i = 0; i < n; i++) {
      const a = got[i] ? norm(got[i] as Tuple) : "-";
      const b = exp.frames[i] ? norm(exp.frames[i] as Tuple) : "-";
      if (a !== b) console.log(`      [${i}] errata ${a}\n          sentry ${b}`);
    }
  }
  const copy = COPIES[name];
  if (copy) {
    const joined = digest(JSON.parse(copy(rawText))).res.hashes.some((x) => res.hashes.includes(x));
    copyResults.push(`${joined ? "joins " : "SPLITS"} ${name}`);
  }
}
console.log(`\nwinning variant: ${variantOk}/${files.length}; contributing frames: ${framesOk}/${framesN}`);
for (const [p, s] of [...byPlatform].sort()) console.log(`  ${p.padEnd(10)} variant ${s.variant}/${s.n}  frames ${s.frames}/${s.framesN}`);
console.log(`\ncleaning-only copies: ${copyResults.filter((c) => c.startsWith("joins")).length}/${copyResults.length} join their original`);
for (const c of copyResults) console.log(`  ${c}`);
const merged = [...hashes.values()].filter((v) => v.includes(","));
console.log(`\ninputs sharing a hash (possible wrong merges): ${merged.length}`);
for (const m of merged) console.log(`  ${m}`);
