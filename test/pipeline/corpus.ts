/**
 * The shared SDK corpus (../shared/corpus): every event sample, and bodies recorded from the
 * official clients. Used by the core unit tests and the digest integration tests.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const CORPUS_DIR = process.env.ERRATA_CORPUS_DIR ?? path.resolve(here, "../../../shared/corpus");
export const SAMPLES_DIR = path.join(CORPUS_DIR, "event-samples");

/** Relative paths (`sentry/java-chained.json`) of every event sample, sorted. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  for (const dir of fs.readdirSync(SAMPLES_DIR).sort()) {
    const full = path.join(SAMPLES_DIR, dir);
    if (!fs.statSync(full).isDirectory()) continue;
    for (const f of fs.readdirSync(full).sort()) if (f.endsWith(".json")) out.push(`${dir}/${f}`);
  }
  return out;
}

export function corpusBytes(rel: string): Buffer {
  return fs.readFileSync(path.join(SAMPLES_DIR, rel));
}

export function corpusJson(rel: string): unknown {
  return JSON.parse(corpusBytes(rel).toString("utf8"));
}

/** The byte-exact body of request N in an `sdk-captures/*.txt` recording. */
export function capturedBody(file: string, request: number): Buffer {
  const text = fs.readFileSync(path.join(CORPUS_DIR, "sdk-captures", file), "utf8");
  const start = text.indexOf(`======== REQUEST ${request}\n`);
  const end = text.indexOf(`\n======== END REQUEST ${request}`);
  if (start === -1 || end === -1) throw new Error(`request ${request} not found in ${file}`);
  const block = text.slice(start, end);
  return Buffer.from(block.slice(block.indexOf("\n\n") + 2), "utf8");
}

/** Wraps an event object in a minimal envelope, the way SDKs send it (header carries the id). */
export function toEnvelope(event: unknown, eventId: string): Buffer {
  const payload = JSON.stringify(event);
  return Buffer.from(`${JSON.stringify({ event_id: eventId, sent_at: "2026-01-01T00:00:00Z" })}\n{"type":"event"}\n${payload}`);
}
