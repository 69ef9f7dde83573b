/**
 * The digest's half of a replay envelope (issue 40), before the batch transaction: the recording is
 * inflated (bounded, off this thread's loop: inflate-bounded.ts), parsed, scrubbed with the
 * project's rules, summarised (clicks, dead and rage clicks, its time span) and written to the blob
 * store — the SDK's own compressed bytes when scrubbing found nothing, else the scrubbed events
 * compressed again — so the transaction only records rows. The blob is durable before the rows
 * commit and before the queue row goes: a crash in between re-digests the row and rewrites the same
 * key. A blob whose rows never commit (a replay another project owns, a replay past its size cap)
 * is left to the retention job's orphan sweep.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { ReplayConfig } from "../../config";
import { AppError } from "../../core/errors";
import { splitRecording } from "../../core/replays/recording";
import { type ReplayEventFields, readReplayEvent } from "../../core/replays/replay-event";
import { mayNeedScrubbing, scrubSegment, summarizeSegment, summarizeText } from "../../core/replays/summary";
import { type ScrubSettings, scrubData } from "../../core/scrub/scrub-event";
import { inflateBounded } from "../../ingest/inflate-bounded";
import type { BlobStore } from "../../storage/blobs/blob-store";
import { type NewSegment, segmentKey } from "../../storage/replays/replays";

const deflate = promisify(zlib.deflate);

export interface ReplayDeps {
  blobs: BlobStore;
  config: ReplayConfig;
}

/** A replay envelope's items as collected (process-items.ts), not yet read. */
export interface RawReplay {
  events: Array<Record<string, unknown>>;
  recordings: Uint8Array[];
}

export interface PreparedReplay {
  replayId: string;
  event: ReplayEventFields | null;
  segments: NewSegment[];
}

/** The replay_event with the project's rules applied (URLs, user, request headers, tags). */
function scrubbedEvent(raw: Record<string, unknown>, scrub: ScrubSettings, headerId: string | undefined): ReplayEventFields | null {
  const fields = readReplayEvent(scrubData(raw, scrub), headerId);
  if (fields && scrub.enabled && scrub.scrubIp) fields.user.ip = null;
  return fields;
}

async function prepareSegment(
  bytes: Uint8Array,
  projectId: number,
  replayId: string,
  scrub: ScrubSettings,
  deps: ReplayDeps,
): Promise<NewSegment> {
  const parts = splitRecording(bytes);
  const cap = deps.config.maxSegmentInflated;
  const text = parts.compressed ? ((await inflateBounded(parts.body, cap, true)).data ?? Buffer.alloc(0)) : Buffer.from(parts.body);
  if (text.length > cap) throw new AppError("replay_segment_too_large");
  const json = text.toString("utf8");
  const blobKey = segmentKey(projectId, replayId, parts.segmentId);
  // Fast path (most segments): nothing the scrubber would touch, no slow click to judge — the
  // summary comes from the text and the SDK's compressed bytes are kept as they are.
  const quick = parts.compressed && !mayNeedScrubbing(json, scrub) && /\]\s*$/.test(json.slice(-64)) ? summarizeText(json) : null;
  if (quick) {
    const stored = Buffer.from(parts.body.buffer, parts.body.byteOffset, parts.body.byteLength);
    await deps.blobs.put(blobKey, stored);
    return { segmentId: parts.segmentId, blobKey, size: stored.length, rawSize: text.length, summary: quick };
  }
  let events: unknown;
  try {
    events = JSON.parse(json);
  } catch {
    throw new AppError("replay_invalid_recording", "The replay recording is malformed: its events are not JSON.");
  }
  if (!Array.isArray(events))
    throw new AppError("replay_invalid_recording", "The replay recording is malformed: its events are not a JSON array.");
  const scrubbed = scrubSegment(events, scrub);
  const summary = summarizeSegment(scrubbed);
  // Nothing scrubbed and already compressed: the SDK's bytes are kept as sent (no re-compression).
  const stored =
    scrubbed === events && parts.compressed
      ? Buffer.from(parts.body.buffer, parts.body.byteOffset, parts.body.byteLength)
      : await deflate(scrubbed === events ? text : Buffer.from(JSON.stringify(scrubbed)));
  await deps.blobs.put(blobKey, stored);
  return { segmentId: parts.segmentId, blobKey, size: stored.length, rawSize: text.length, summary };
}

/** Reads, scrubs and stores one envelope's replay items; throws the catalogue error for bad ones. */
export async function prepareReplay(
  raw: RawReplay,
  projectId: number,
  headerId: string | undefined,
  scrub: ScrubSettings,
  deps: ReplayDeps,
): Promise<PreparedReplay> {
  const first = raw.events[0];
  const event = first ? scrubbedEvent(first, scrub, headerId) : null;
  const replayId = event?.replayId ?? headerId;
  if (!replayId) throw new AppError("replay_unknown", "The replay items name no replay id.");
  const segments: NewSegment[] = [];
  for (const bytes of raw.recordings) segments.push(await prepareSegment(bytes, projectId, replayId, scrub, deps));
  return { replayId, event, segments };
}
