/**
 * Maps that arrive after their events: assembling a bundle enqueues a job with its debug ids; the
 * digest worker calls `tick()` every loop and, when a job is due, rewrites a small batch of the
 * recent events that waited for those ids (`event_debug_ids`, filled at digest time).
 *
 * An event keeps its issue: only the stored payload (and its culprit) is rewritten. The grouping
 * hashes of the now-readable event are added to that issue, so later events — symbolicated before
 * they are grouped — join it instead of splitting off into a new issue.
 */
import { loadConfig, type SourcemapConfig } from "../config";
import type { NormalizedEvent } from "../core/event";
import { groupEvent, groupingRulesOf } from "../core/grouping/index";
import { readScrubSettings, scrubEvent } from "../core/scrub/scrub-event";
import { restoreMinifiedFrames } from "../core/symbolicate/symbolicate-frames";
import type { Logger } from "../log";
import type { Db } from "../storage/db";
import { getEvent } from "../storage/events/events";
import { lockEventIssue, lockProjectRow, writeIssueTx } from "../storage/issues/issue-locks";
import { readProjectProcessing } from "../storage/orgs/project-processing";
import {
  aliasIssueHashes,
  claimResymbolicationJob,
  continueResymbolicationJob,
  deleteEventDebugIds,
  deleteOldEventDebugIds,
  eventsWaitingForDebugIds,
  finishResymbolicationJob,
  type ResymbolicationJob,
  rewriteEventPayload,
  updateIssueCulprit,
} from "../storage/releases/artifacts";
import { sha256Hex } from "./digest-batch";
import { createSymbolicator, type Symbolicator } from "./symbolicate-event";

export interface ResymbolicatorOptions {
  /** only events received within this many days */
  days: number;
  /** at most this many events per job (per upload) */
  maxEvents: number;
  /** events rewritten per tick: small, so digesting new events is never held up for long */
  batchSize?: number;
  /** how often to look for a job when there was none (default 1 s) */
  idleCheckMs?: number;
  /** a claimed job is retried after this long if its worker died (default 60 s) */
  leaseMs?: number;
  now?: () => number;
}

export interface Resymbolicator {
  /** Does one small step of due work; cheap when there is none. Never throws. Returns events rewritten. */
  tick(): Promise<number>;
}

const DAY_MS = 24 * 3600 * 1000;
const MAX_ATTEMPTS = 5;

export function createResymbolicator(db: Db, symbolicator: Symbolicator, log: Logger, opts: ResymbolicatorOptions): Resymbolicator {
  const now = opts.now ?? Date.now;
  const batchSize = opts.batchSize ?? 25;
  const idleCheckMs = opts.idleCheckMs ?? 1000;
  const leaseMs = opts.leaseMs ?? 60_000;
  let nextCheck = 0;

  async function rewrite(job: ResymbolicationJob, projectId: number, eventId: string): Promise<boolean> {
    const stored = await getEvent(db, projectId, eventId);
    if (!stored) {
      // Deleted by retention since: nothing to rewrite.
      await deleteEventDebugIds(db, { projectId, eventId, debugIds: job.debugIds });
      return false;
    }
    const restored = stored.event as NormalizedEvent;
    if (!restored.errata || !Array.isArray(restored.errata.notes)) restored.errata = { ...(restored.errata ?? {}), notes: [] };
    restoreMinifiedFrames(restored);
    await symbolicator.symbolicate(restored, projectId);
    // The new context lines come from uploaded sources: they pass the project's scrubbing like
    // everything else stored (the rest of the event was scrubbed at digest time already).
    const settings = (await readProjectProcessing(db, [projectId])).get(projectId)?.settings;
    const event = scrubEvent(restored, readScrubSettings(settings));
    // The version the event was grouped with; hashes of another version would never match.
    const grouping = groupEvent(event, event.errata.grouping?.version ?? "v1", sha256Hex, groupingRulesOf(settings ?? {}));
    // The digest's lock order (src/storage/issues/issue-locks.ts): the event's issue as it is now
    // (a merge or unmerge may have moved the event since it was read), then the project's row,
    // under which hashes are registered.
    const retried = (err: unknown, attempt: number) =>
      log.warn(
        { jobId: job.id, attempt, err: { name: (err as Error)?.name, code: (err as { code?: string })?.code } },
        "re-symbolication transaction retried",
      );
    return writeIssueTx(
      db,
      async (tx) => {
        const issueId = await lockEventIssue(tx, projectId, eventId);
        if (issueId === undefined) {
          await deleteEventDebugIds(tx, { projectId, eventId, debugIds: job.debugIds });
          return false;
        }
        await lockProjectRow(tx, projectId);
        await rewriteEventPayload(tx, { projectId, eventId, payload: event, culprit: grouping.culprit });
        await aliasIssueHashes(tx, { projectId, issueId, hashes: grouping.hashes, groupingVersion: grouping.version });
        await updateIssueCulprit(tx, { issueId, from: stored.culprit, to: grouping.culprit });
        await deleteEventDebugIds(tx, { projectId, eventId, debugIds: job.debugIds });
        return true;
      },
      retried,
    );
  }

  async function runJob(job: ResymbolicationJob, t: number): Promise<number> {
    if (job.attempts > MAX_ATTEMPTS) {
      log.error({ jobId: job.id, attempts: job.attempts }, "re-symbolication job failed too often; dropped");
      await finishResymbolicationJob(db, job.id);
      return 0;
    }
    // The job exists because maps were just uploaded: cached misses for them are stale.
    symbolicator.invalidateLookups();
    const limit = Math.min(batchSize, Math.max(0, opts.maxEvents - job.processed));
    const since = t - opts.days * DAY_MS;
    const waiting = limit > 0 ? await eventsWaitingForDebugIds(db, { orgId: job.orgId, debugIds: job.debugIds, since, limit }) : [];
    let rewritten = 0;
    for (const w of waiting) if (await rewrite(job, w.projectId, w.eventId)) rewritten += 1;
    const processed = job.processed + waiting.length;
    if (waiting.length < limit || limit === 0 || processed >= opts.maxEvents) {
      await finishResymbolicationJob(db, job.id);
      await deleteOldEventDebugIds(db, since);
      log.info({ jobId: job.id, debugIds: job.debugIds.length, events: processed }, "re-symbolication done");
    } else {
      await continueResymbolicationJob(db, job.id, processed, t);
      // More of this job is due right away.
      nextCheck = 0;
    }
    return rewritten;
  }

  return {
    async tick() {
      const t = now();
      if (t < nextCheck) return 0;
      try {
        const job = await claimResymbolicationJob(db, t, leaseMs);
        if (!job) {
          nextCheck = t + idleCheckMs;
          return 0;
        }
        return await runJob(job, t);
      } catch (err) {
        nextCheck = t + idleCheckMs;
        log.error({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, "re-symbolication failed; retrying later");
        return 0;
      }
    },
  };
}

/**
 * What the digest worker runs for source maps: the symbolicator (digest deps `symbolicate`) and the
 * re-symbolicator's `tick`, sharing one cache. Without config (tests), the documented defaults.
 */
export function createSourcemapPipeline(
  db: Db,
  log: Logger,
  config: SourcemapConfig | undefined,
  now: () => number = Date.now,
): { symbolicate: Symbolicator["symbolicate"]; tick: Resymbolicator["tick"]; symbolicator: Symbolicator } {
  const c = config ?? loadConfig({}).sourcemaps;
  const symbolicator = createSymbolicator(db, log, { cacheBytes: c.cacheBytes, now });
  const resymbolicator = createResymbolicator(db, symbolicator, log, {
    days: c.resymbolicateDays,
    maxEvents: c.resymbolicateMaxEvents,
    now,
  });
  return { symbolicate: (event, projectId) => symbolicator.symbolicate(event, projectId), tick: () => resymbolicator.tick(), symbolicator };
}
