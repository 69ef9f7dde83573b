/**
 * A `replay_recording` item as the Browser SDK sends it (reference §3.4): one JSON header line
 * `{"segment_id":N}`, a newline, then the segment's rrweb events as a JSON array, zlib-compressed
 * (the SDK's compression worker) or plain (when the worker could not start). Pure: splits and
 * checks the bytes; inflating is the caller's (bounded, asynchronous).
 */
import { AppError } from "../errors";

export interface RecordingParts {
  segmentId: number;
  /** the bytes after the header line */
  body: Uint8Array;
  /** zlib stream (else a plain JSON array) */
  compressed: boolean;
}

/** A header line longer than this is not the SDK's. */
const MAX_HEADER = 1024;
const LF = 0x0a;

function invalid(why: string): AppError {
  return new AppError("replay_invalid_recording", `The replay recording is malformed: ${why}.`);
}

/** Header and body of a recording payload; `replay_invalid_recording` when it is not one. */
export function splitRecording(payload: Uint8Array): RecordingParts {
  const nl = payload.subarray(0, MAX_HEADER + 1).indexOf(LF);
  if (nl === -1) throw invalid('no header line ({"segment_id": N} and a newline) before the events');
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, nl).toString("utf8"));
  } catch {
    throw invalid("the header line is not JSON");
  }
  const segmentId = (header as { segment_id?: unknown } | null)?.segment_id;
  if (typeof header !== "object" || header === null || Array.isArray(header)) throw invalid("the header line is not a JSON object");
  if (typeof segmentId !== "number" || !Number.isSafeInteger(segmentId) || segmentId < 0 || segmentId > 1_000_000)
    throw invalid("the header's segment_id is not a non-negative whole number");
  const body = payload.subarray(nl + 1);
  if (isZlibHeader(body)) return { segmentId, body, compressed: true };
  if (firstNonSpace(body) === 0x5b) return { segmentId, body, compressed: false };
  throw invalid("the events are neither zlib-compressed nor a JSON array");
}

/** RFC 1950: CM = 8 (deflate), window ≤ 32 KiB, and the check bits make CMF·256+FLG a multiple of 31. */
export function isZlibHeader(b: Uint8Array): boolean {
  if (b.length < 2) return false;
  const cmf = b[0] as number;
  const flg = b[1] as number;
  return (cmf & 0x0f) === 8 && cmf >> 4 <= 7 && (cmf * 256 + flg) % 31 === 0;
}

/** The first byte that is not JSON whitespace, or -1. */
export function firstNonSpace(b: Uint8Array): number {
  for (const c of b) if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return c;
  return -1;
}
