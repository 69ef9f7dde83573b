/**
 * The replay load generator of `npm run bench:replay`, in its own process: SESSIONS browser
 * sessions, each sending one segment every INTERVAL_MS (the SDK flushes every ~5 s) of ~SEGMENT
 * bytes as sent, for SECONDS (or until SIGTERM), keep-alive, one connection per session. Prints
 * one JSON line with what it sent when it ends.
 *
 *   node --import tsx bench/replay-load.ts <envelope url> <sessions> <segment bytes> <seconds> [interval ms]
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import { segmentBody, segmentEnvelope } from "./replay-segments";

const [url, sessionsArg, bytesArg, secondsArg, intervalArg] = process.argv.slice(2);
const SESSIONS = Number(sessionsArg ?? 50);
const SEGMENT = Number(bytesArg ?? 85_000);
const SECONDS = Number(secondsArg ?? 60);
const INTERVAL_MS = Number(intervalArg ?? 5000);

// A few distinct bodies per segment number class (0 has the full snapshot), reused by every session;
// one in eight carries a request with secrets for the scrubber (the digest's full path).
const first = segmentBody(0, Date.now(), SEGMENT, 1);
const rest = Array.from({ length: 8 }, (_, i) => segmentBody(1, Date.now(), SEGMENT, i + 2, i === 0));
let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
});
const stats = { sent: 0, ok: 0, failed: 0, bytes: 0, statuses: {} as Record<string, number> };
const agent = new http.Agent({ keepAlive: true, maxSockets: SESSIONS });

function post(body: Buffer): Promise<number> {
  return new Promise((resolve) => {
    const req = http.request(url as string, { method: "POST", agent, headers: { "content-length": String(body.length) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve(0));
    req.end(body);
  });
}

async function session(s: number): Promise<void> {
  const replayId = randomUUID().replace(/-/g, "");
  const start = Date.now();
  // Sessions start spread over one interval, as real ones do.
  await new Promise((r) => setTimeout(r, (INTERVAL_MS * s) / SESSIONS));
  for (let n = 0; !stopping && Date.now() - start < SECONDS * 1000; n++) {
    const t = Date.now();
    const body = n === 0 ? first : (rest[n % rest.length] as (typeof rest)[number]);
    const recording = Buffer.concat([Buffer.from(`{"segment_id":${n}}\n`), body.recording.subarray(body.recording.indexOf(10) + 1)]);
    const status = await post(segmentEnvelope(replayId, n, start, t, recording));
    stats.sent += 1;
    stats.bytes += recording.length;
    stats.statuses[status] = (stats.statuses[status] ?? 0) + 1;
    if (status === 200) stats.ok += 1;
    else stats.failed += 1;
    const wait = INTERVAL_MS - (Date.now() - t);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
}

await Promise.all(Array.from({ length: SESSIONS }, (_, s) => session(s)));
agent.destroy();
process.stdout.write(`${JSON.stringify({ ...stats, segmentBytes: first.recording.length, inflated: rest[0]?.inflated })}\n`);
