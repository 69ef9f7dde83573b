/**
 * The shared corpus (`../shared/corpus`) as test inputs for ingest: recorded @sentry/node requests,
 * the text captures of @sentry/node and @sentry/browser, and the event samples wrapped as envelopes.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CORPUS = process.env.ERRATA_CORPUS ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/corpus");
export const SDK_CAPTURES = path.join(CORPUS, "sdk-captures");
export const NODE_CAPTURES = path.join(SDK_CAPTURES, "node-sdk-and-sentry-cli-3");
export const EVENT_SAMPLES = path.join(CORPUS, "event-samples");

export interface RecordedRequest {
  name: string;
  method: string;
  /** Path + query as recorded (project 42, key abc123…). */
  url: string;
  headers: Record<string, string>;
  /** Bytes as sent on the wire (04 is gzip). */
  body: Buffer;
  /** Plain envelope bytes (the `.decoded` file when the body is compressed). */
  decoded: Buffer;
}

/** The seven recorded `@sentry/node` 11.12 envelope requests (01–07). */
export function nodeEnvelopeCaptures(): RecordedRequest[] {
  const names = fs
    .readdirSync(NODE_CAPTURES)
    .filter((f) => /^0[1-7]_POST_api_42_envelope\.body$/.test(f))
    .sort();
  return names.map((file) => {
    const base = file.replace(/\.body$/, "");
    const meta = JSON.parse(fs.readFileSync(path.join(NODE_CAPTURES, `${base}.meta.json`), "utf8")) as {
      method: string;
      url: string;
      headers: Record<string, string>;
    };
    const body = fs.readFileSync(path.join(NODE_CAPTURES, file));
    const decodedPath = path.join(NODE_CAPTURES, `${base}.decoded`);
    const decoded = fs.existsSync(decodedPath) ? fs.readFileSync(decodedPath) : body;
    return { name: base, method: meta.method, url: meta.url, headers: meta.headers, body, decoded };
  });
}

/** Rewrites a recorded ingest URL to another project id and key, keeping the other parameters. */
export function retarget(url: string, projectId: number, publicKey: string): string {
  const u = new URL(url, "http://x");
  u.pathname = u.pathname.replace(/^\/api\/\d+\//, `/api/${projectId}/`);
  if (u.searchParams.has("sentry_key")) u.searchParams.set("sentry_key", publicKey);
  return u.pathname + u.search;
}

export interface TextCapture {
  requestLine: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Requests from a text capture (`browser-sdk-envelope.txt`, `node-sdk-envelope.txt`): blocks from
 * `======== REQUEST` to `======== END REQUEST … (body N bytes)`; the body length is verified.
 */
export function textCaptures(file: string): TextCapture[] {
  const text = fs.readFileSync(path.join(SDK_CAPTURES, file), "utf8");
  const out: TextCapture[] = [];
  const re = /======== REQUEST[^\n]*\n([\s\S]*?)\n======== END REQUEST[^\n]*\(body (\d+) bytes\)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const block = m[1];
    const split = block.indexOf("\n\n");
    const head = split === -1 ? block : block.slice(0, split);
    const body = Buffer.from(split === -1 ? "" : block.slice(split + 2), "utf8");
    const expected = Number(m[2]);
    if (body.length !== expected) throw new Error(`${file}: body is ${body.length} bytes, capture says ${expected}`);
    const [requestLine, ...lines] = head.split("\n");
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(":");
      if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    out.push({ requestLine, headers, body });
  }
  return out;
}

/** Every `event-samples/**\/*.json`, as paths relative to EVENT_SAMPLES, sorted. */
export function eventSampleFiles(): string[] {
  const walk = (dir: string): string[] =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  return walk(EVENT_SAMPLES)
    .filter((f) => f.endsWith(".json"))
    .map((f) => path.relative(EVENT_SAMPLES, f))
    .sort();
}

/** Files the corpus marks as not following the schema (may be rejected with a catalogue 4xx). */
export function knownBroken(): Set<string> {
  const text = fs.readFileSync(path.join(EVENT_SAMPLES, "KNOWN-BROKEN"), "utf8");
  return new Set(
    text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#")),
  );
}

/**
 * An event JSON wrapped as an envelope. The payload keeps its exact bytes (samples are
 * pretty-printed, so the item carries an explicit `length`).
 */
export function eventEnvelope(payload: Buffer | string, envelopeHeaders: Record<string, unknown> = {}): Buffer {
  const bytes = typeof payload === "string" ? Buffer.from(payload) : payload;
  return Buffer.concat([
    Buffer.from(`${JSON.stringify(envelopeHeaders)}\n${JSON.stringify({ type: "event", length: bytes.length })}\n`),
    bytes,
  ]);
}
