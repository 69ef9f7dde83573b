/**
 * Ingest's checks of replay items (issue 40), before anything is queued, so bad input gets its
 * catalogue code and leaves nothing half-written:
 *
 *   recording      a JSON header line, then zlib or a plain JSON array (replay_invalid_recording);
 *                  ≤ REPLAY_SEGMENT_MAX_SIZE as sent, ≤ REPLAY_SEGMENT_MAX_INFLATED inflated —
 *                  inflated here in bounded chunks off the event loop (inflate-bounded.ts), the
 *                  output counted and dropped (replay_segment_too_large)
 *   ownership      a replay id another project owns (replay_foreign)
 *   unknown        a bare segment (no replay_event with it) of a replay never seen (replay_unknown)
 *   size cap       the replay's stored bytes plus this segment past REPLAY_MAX_SIZE (replay_too_large)
 *
 * Ownership and size come from the `replays` table, plus what this process accepted since (the
 * digest may not have stored it yet), kept in a bounded map. The digest checks all of it again:
 * with several ingest processes the last word is the worker's.
 */
import type { ReplayConfig } from "../config";
import { AppError } from "../core/errors";
import { splitRecording } from "../core/replays/recording";
import { normalizeId } from "../core/replays/replay-event";
import type { Db } from "../storage/db";
import { findReplayOwner } from "../storage/replays/replays";
import { inflateBounded } from "./inflate-bounded";
import { type EnvelopeItem, parseJsonObject } from "./parse-envelope";

export const REPLAY_TYPES: ReadonlySet<string> = new Set(["replay_event", "replay_recording"]);

/**
 * Replays this process accepted recently: owner, and all the bytes it accepted for each (the
 * table's size lags behind by what the digest has not stored yet; the larger of the two counts).
 */
const RECENT_MAX = 20_000;

export interface ReplayCheck {
  replayId: string;
  /** compressed bytes of the recordings, what the replay's size grows by */
  bytes: number;
}

export interface ReplayGate {
  /** Throws the catalogue error for bad replay items; answers what to note once they are committed. */
  check(projectId: number, items: readonly EnvelopeItem[], headerId: string | undefined): Promise<ReplayCheck | undefined>;
  /** The items were queued (durable): their replay now belongs to `projectId`. */
  accepted(projectId: number, c: ReplayCheck): void;
}

export function createReplayGate(db: Db, cfg: ReplayConfig): ReplayGate {
  const recent = new Map<string, { projectId: number; accepted: number }>();

  async function checkRecording(item: EnvelopeItem): Promise<number> {
    const payload = item.payload;
    if (payload.length > cfg.maxSegmentSize)
      throw new AppError(
        "replay_segment_too_large",
        `A replay segment is ${payload.length} bytes as sent; the limit is ${cfg.maxSegmentSize} (REPLAY_SEGMENT_MAX_SIZE).`,
      );
    const parts = splitRecording(payload);
    if (!parts.compressed) {
      if (parts.body.length > cfg.maxSegmentInflated)
        throw new AppError(
          "replay_segment_too_large",
          `A replay segment is more than ${cfg.maxSegmentInflated} bytes (REPLAY_SEGMENT_MAX_INFLATED).`,
        );
      return payload.length;
    }
    const inflated = await inflateBounded(parts.body, cfg.maxSegmentInflated, false);
    if (inflated.first !== 0x5b)
      throw new AppError("replay_invalid_recording", "The replay recording is malformed: its inflated events are not a JSON array.");
    return payload.length;
  }

  return {
    async check(projectId, items, headerId) {
      let replayId: string | undefined;
      let hasEvent = false;
      let bytes = 0;
      for (const item of items) {
        if (item.headers.type === "replay_event") {
          hasEvent = true;
          const raw = parseJsonObject(item.payload, "replay_event");
          replayId ??= normalizeId(raw.replay_id) ?? normalizeId(raw.event_id) ?? undefined;
        } else if (item.headers.type === "replay_recording") bytes += await checkRecording(item);
      }
      replayId ??= headerId;
      if (!replayId)
        throw new AppError("replay_unknown", "The replay items name no replay id (envelope event_id or replay_event.replay_id).");
      const local = recent.get(replayId);
      const stored = await findReplayOwner(db, replayId);
      const owner = stored?.projectId ?? local?.projectId;
      if (owner !== undefined && owner !== projectId) throw new AppError("replay_foreign");
      if (owner === undefined && !hasEvent) throw new AppError("replay_unknown");
      const size = Math.max(stored?.sizeBytes ?? 0, local?.accepted ?? 0) + bytes;
      if (bytes > 0 && size > cfg.maxReplaySize)
        throw new AppError("replay_too_large", `This replay would hold ${size} bytes; the cap is ${cfg.maxReplaySize} (REPLAY_MAX_SIZE).`);
      return { replayId, bytes };
    },
    accepted(projectId, c) {
      const prev = recent.get(c.replayId);
      recent.delete(c.replayId);
      recent.set(c.replayId, { projectId, accepted: (prev?.accepted ?? 0) + c.bytes });
      if (recent.size > RECENT_MAX) recent.delete(recent.keys().next().value as string);
    },
  };
}
