/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per file, so
 * the biggest costs of a bench run can be read without DevTools.
 *   npx tsx bench/profile-summary.ts bench/.profiles/CPU.….cpuprofile [top]
 */

import fs from "node:fs";
import { parseArgs } from "node:util";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { positionals } = parseArgs({ allowPositionals: true });
const file = positionals[0];
if (!file) throw new Error("usage: profile-summary.ts <file.cpuprofile> [top]");
const top = Number(positionals[1] ?? 30);
const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
for (let i = 0; i < p.samples.length; i++) self.set(p.samples[i], (self.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTime = new Map<string, number>();
const fileTime = new Map<string, number>();
for (const [id, t] of self) {
  const n = byId.get(id);
  if (!n) continue;
  const url = n.callFrame.url.replace(/^.*node_modules\//, "nm/").replace(/^file:\/\/.*\/work\/main\//, "");
  const key = `${n.callFrame.functionName || "(anon)"} ${url}:${n.callFrame.lineNumber + 1}`;
  fnTime.set(key, (fnTime.get(key) ?? 0) + t);
  const f = url || n.callFrame.functionName;
  fileTime.set(f, (fileTime.get(f) ?? 0) + t);
}
const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
console.log(`total sampled ${(total / 1000).toFixed(0)} ms`);
console.log("\n-- self time by function --");
for (const [k, t] of [...fnTime].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(t), k);
console.log("\n-- self time by file --");
for (const [k, t] of [...fileTime].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(t), k);
