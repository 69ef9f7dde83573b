/**
 * `npm run bench:bundle` — does assembling an honest high-ratio source-map bundle stall the server?
 * Starts the built Errata (SQLite), uploads a bundle of N entries of M MiB of zeros (default 8 ×
 * 60 MiB: a ~480 KB zip inside every default limit, the shape of issue 27), and from a separate
 * process polls /readyz one request at a time, before (baseline) and during assembly. Prints
 * p50/p99/max of each phase, their ratio, how long the assembly took, and the CPU the server's
 * main thread spent per /readyz answered in each phase (the assembly's own work runs on its
 * thread; on a busy host latency percentiles move with the neighbours, that ratio does not).
 * Target: p99 during assembly < 100 ms.
 *
 * Options (node:util parseArgs): --entries N (8), --entry-mib M (60), --rounds N (2),
 *   --baseline S (5, seconds of polling before each assembly).
 * Not a test: figures depend on the machine (and on what else runs on it).
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { parseArgs, promisify } from "node:util";
import zlib from "node:zlib";
import { rawZip } from "../test/helpers/raw-zip";
import { CLI, cpuOf, procStat, ROOT, sleep, startErrata } from "./helpers";

const { values } = parseArgs({
  options: {
    entries: { type: "string", default: "8" },
    "entry-mib": { type: "string", default: "60" },
    rounds: { type: "string", default: "2" },
    baseline: { type: "string", default: "5" },
  },
});
const ENTRIES = Number(values.entries);
const ENTRY_BYTES = Number(values["entry-mib"]) * 1024 * 1024;
const ROUNDS = Number(values.rounds);
const BASELINE_MS = Number(values.baseline) * 1000;

const execFileP = promisify(execFile);
const sha1 = (b: Uint8Array) => createHash("sha1").update(b).digest("hex");

/**
 * An honest zip (sizes and CRCs true) of `count` entries of `size` zeros plus the manifest, with
 * the SYSB header sentry-cli writes. The deflate stream of the zeros is made once and reused.
 */
function zerosBundle(count: number, size: number, round: number): Buffer {
  const zeros = Buffer.alloc(size);
  const files: Record<string, unknown> = {};
  const entries: Array<{ name: string; data: Buffer; crc: number; size: number }> = [];
  const deflated = zlib.deflateRawSync(zeros, { level: 9 });
  const crc = zlib.crc32(zeros);
  for (let i = 0; i < count; i++) {
    const name = `files/_/_/zeros-${i}.js`;
    files[name] = { url: `~/zeros-${i}.js`, type: "source", headers: {} };
    entries.push({ name, data: deflated, crc, size });
  }
  // The round in the manifest: each round a new checksum, so none reuses an assembled bundle.
  const manifest = Buffer.from(JSON.stringify({ files, round }));
  entries.unshift({ name: "manifest.json", data: zlib.deflateRawSync(manifest), crc: zlib.crc32(manifest), size: manifest.length });
  // sentry-cli's bundle header before the zip.
  return rawZip(entries, Buffer.from([0x53, 0x59, 0x53, 0x42, 2, 0, 0, 0]));
}

/** The prober: its own process, one /readyz at a time, a JSON line `[startedAtMs, latencyMs]` per answer. */
const PROBER = `
const url = process.argv[1];
let stop = false;
process.stdin.on("data", () => { stop = true; });
(async () => {
  while (!stop) {
    const t0 = performance.timeOrigin + performance.now();
    const s = performance.now();
    const res = await fetch(url);
    await res.arrayBuffer();
    process.stdout.write(JSON.stringify([t0, performance.now() - s, res.status]) + "\\n");
    await new Promise((r) => setTimeout(r, 10));
  }
  process.exit(0);
})();
`;

interface Sample {
  at: number;
  ms: number;
}

function stats(samples: Sample[]): { n: number; p50: number; p99: number; max: number } {
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? Number.NaN;
  return { n: ms.length, p50: q(0.5), p99: q(0.99), max: ms.at(-1) ?? Number.NaN };
}

const fmt = (s: ReturnType<typeof stats>) => `n=${s.n} p50=${s.p50.toFixed(1)} ms p99=${s.p99.toFixed(1)} ms max=${s.max.toFixed(1)} ms`;

async function main(): Promise<void> {
  console.log(`bundle: ${ENTRIES} entries × ${ENTRY_BYTES / 1024 / 1024} MiB of zeros`);
  const server = await startErrata();
  const env = server.env as NodeJS.ProcessEnv;
  const token = (
    await execFileP(
      process.execPath,
      [CLI, "token", "create", "--email", "bench@example.com", "--scopes", "project:releases,project:read"],
      {
        cwd: ROOT,
        env,
      },
    )
  ).stdout.trim();
  const auth = { authorization: `Bearer ${token}` };
  const prober = spawn(process.execPath, ["-e", PROBER, `${server.url}/readyz`], { stdio: ["pipe", "pipe", "inherit"] });
  const samples: Sample[] = [];
  let buffered = "";
  prober.stdout.on("data", (d: Buffer) => {
    buffered += d;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const l of lines) {
      const [at, ms, status] = JSON.parse(l) as [number, number, number];
      if (status !== 200) throw new Error(`/readyz answered ${status}`);
      samples.push({ at, ms });
    }
  });
  const baseline: Sample[] = [];
  const during: Sample[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const data = zerosBundle(ENTRIES, ENTRY_BYTES, round);
      if (round === 1) console.log(`zip: ${(data.length / 1024).toFixed(0)} KB`);
      const checksum = sha1(data);
      const assemble = () =>
        fetch(`${server.url}/api/0/organizations/bench/artifactbundle/assemble/`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ checksum, chunks: [checksum], projects: ["bench"] }),
        });
      // As the CLIs do: ask first (answers not_found), then upload the missing chunk.
      const asked = await (await assemble()).json();
      if ((asked as { state?: string }).state !== "not_found") throw new Error(`assemble (ask): ${JSON.stringify(asked)}`);
      const form = new FormData();
      form.append("file_gzip", new Blob([zlib.gzipSync(data)]), checksum);
      const up = await fetch(`${server.url}/api/0/organizations/bench/chunk-upload/`, { method: "POST", headers: auth, body: form });
      if (!up.ok) throw new Error(`chunk upload: ${up.status} ${await up.text()}`);

      // CPU seconds of the server's main thread and of the whole process (exited threads included).
      const mainCpu = () => [...cpuOf(server.pid)].find(([k]) => k.startsWith("main#"))?.[1] ?? Number.NaN;
      const processCpu = () => procStat(`/proc/${server.pid}/stat`).cpuSecs;
      const mb0 = mainCpu();
      const b0 = Date.now();
      await sleep(BASELINE_MS);
      const b1 = Date.now();
      const mb1 = mainCpu();
      const [m0, p0] = [mainCpu(), processCpu()];
      const a0 = Date.now();
      const res = await assemble();
      const answer = await res.text();
      const a1 = Date.now();
      if (!res.ok || !answer.includes('"ok"')) throw new Error(`assemble: ${res.status} ${answer}`);
      // Probes answered during the window (a probe started before it ended counts for it).
      const inBase = samples.filter((s) => s.at >= b0 && s.at < b1);
      const inAsm = samples.filter((s) => s.at >= a0 && s.at < a1);
      baseline.push(...inBase);
      during.push(...inAsm);
      const [m1, p1] = [mainCpu(), processCpu()];
      console.log(
        `round ${round}: assembly ${((a1 - a0) / 1000).toFixed(1)} s; CPU meanwhile: main thread ${(m1 - m0).toFixed(2)} s, whole process ${(p1 - p0).toFixed(2)} s`,
      );
      // The prober's requests cost main-thread CPU too: per probe, assembly adds what the baseline lacks.
      const perProbe = (cpu: number, n: number) => `${((cpu / Math.max(1, n)) * 1000).toFixed(2)} ms`;
      console.log(
        `  main-thread CPU per /readyz answered: baseline ${perProbe(mb1 - mb0, inBase.length)}, during assembly ${perProbe(m1 - m0, inAsm.length)}`,
      );
      console.log(`  baseline          ${fmt(stats(inBase))}`);
      console.log(`  during assembly   ${fmt(stats(inAsm))}`);
    }
  } finally {
    prober.stdin.write("x");
    await new Promise((r) => prober.once("exit", r));
    await server.stop();
  }
  const b = stats(baseline);
  const d = stats(during);
  console.log(`all rounds: baseline ${fmt(b)}`);
  console.log(`all rounds: during   ${fmt(d)}`);
  console.log(`ratio during/baseline: p50 ×${(d.p50 / b.p50).toFixed(2)}, p99 ×${(d.p99 / b.p99).toFixed(2)}`);
  console.log(`target p99 during assembly < 100 ms: ${d.p99 < 100 ? "met" : "NOT met"}`);
}

await main();
