/**
 * The path of an event, digest half (see docs/architecture.md):
 *
 *   queue row (envelope | store body)
 *     → parse (outside the transaction; a row that cannot be parsed is dropped and counted `failed`)
 *     → normalizeEvent (core, pure) → scrubEvent (core, the project's PII settings)
 *     → groupEventForProject (core, versioned, hash injected; both versions during a transition)
 *     → match: which issues own the batch's hashes (a read, outside the transaction)
 *     → ONE short write transaction per batch, in the lock order triage uses too
 *       (src/storage/issues/issue-locks.ts): lock the matched issues by id, read the owners again
 *       (an issue merged away, deleted or unmerged meanwhile is followed: the survivor, a new
 *       issue, the split-off one), find/create issues, insert events (duplicates by
 *       (project, event_id) are skipped), count users and events, delete the queue rows.
 *
 * At-least-once: a worker that dies before the commit leaves the rows leased; they come back
 * after the lease and are stored exactly once thanks to the (project_id, event_id) key.
 */
import { createHash, randomUUID } from "node:crypto";
import type { Config } from "../config";
import { DEFAULT_NEXTJS_HOLD } from "../core/alerts/nextjs-alert";
import { isAppError } from "../core/errors";
import type { NormalizedEvent, ProcessingNote } from "../core/event";
import {
  type GroupingResult,
  groupEventForProject,
  groupingRulesOf,
  type HashFn,
  type ProjectGrouping,
  type ProjectGroupingRules,
} from "../core/grouping/index";
import type { LifecycleConfig } from "../core/issue-state/types";
import { annotateNextjs, describeWithNextjs, type NextjsAnnotations } from "../core/nextjs/index";
import { normalizeEvent, parseTimestamp } from "../core/normalize-event";
import { OutcomeTally } from "../core/outcomes";
import { replayIdOfEvent } from "../core/replays/replay-event";
import { readScrubSettings, type ScrubSettings, scrubEvent } from "../core/scrub/scrub-event";
import { statTagsOf } from "../core/search/event-tags";
import { applyUserAgentContexts } from "../core/user-agent";
import { normalizeEventId, parseEnvelope, parseJsonObject } from "../ingest/parse-envelope";
import type { Logger } from "../log";
import type { Db } from "../storage/db";
import { isTransientTxError, type Tx, writeTx } from "../storage/dialect";
import { addIssueFlag } from "../storage/events/digests";
import { encodePayload, eventKey, existingEventIds, insertEvents, type NewEvent } from "../storage/events/events";
import { dropDanglingHashes, IssueLockOrderError, IssueLocks, lockProjectRow, readHashOwners } from "../storage/issues/issue-locks";
import { addIssueHashes, addIssueUsers, deleteIssueRows, insertIssue, issueUserKey, recordIssueEvent } from "../storage/issues/issues";
import { IssueStatsBatch, writeIssueStats } from "../storage/issues/stats";
import { readProjectProcessing } from "../storage/orgs/project-processing";
import { markDigested, postponeQueued, type QueueItem, queueStore, releaseDigested } from "../storage/queue/queue";
import { eraseDeletedContent } from "../storage/queue/secure-erase";
import { recordEventDebugIds } from "../storage/releases/artifacts";
import { recordReleases, type SeenRelease } from "../storage/releases/releases";
import { linkReplayError } from "../storage/replays/replays";
import { countsEachEvent } from "./alerts/record-alert-triggers";
import { recordCrashFreeTriggers, TouchedReleases } from "./alerts/record-crash-free";
import { IssueCounters } from "./issue-counters";
import { applyEventLifecycle } from "./lifecycle-step";
import { monitorWaitMs } from "./monitor-checkins";
import {
  checkInWaits,
  collectItem,
  type ItemExtras,
  invalidItem,
  invalidRow,
  newExtras,
  prepareReplayItems,
  publishOutcomes,
  recordEventOutcome,
  storeExtras,
  writeOutcomes,
} from "./process-items";
import type { ReplayDeps } from "./replays/prepare-replay";

export interface DigestDeps {
  /** epoch ms; used for logging decisions only — events carry their own receive time */
  now: number;
  limits: Pick<Config["limits"], "maxHeaderLine" | "maxEventSize" | "maxAttachmentSize">;
  log: Logger;
  hash: HashFn;
  /** A row whose own transaction keeps failing is dropped after this many claims (default 5). */
  maxAttempts?: number;
  /** Event ids for events that arrive without one (default: random UUID hex). */
  newEventId?: () => string;
  /** Source maps, right after normalisation (src/pipeline/symbolicate-event.ts); none when absent. */
  symbolicate?: (event: NormalizedEvent, projectId: number) => Promise<{ missingDebugIds: string[] }>;
  /** Issue lifecycle settings (new → ongoing age); default 7 days. */
  lifecycle?: LifecycleConfig;
  /** Days the previous grouping version keeps matching after a project switches (default 30). */
  groupingTransitionDays?: number;
  /** Told how long the batch's write transaction held the write lock (ms): the worker paces on it. */
  onWriteTx?: (ms: number) => void;
  /**
   * Tests only (absent in production): awaited after the batch's events were matched to issues
   * and before the write transaction, so a test can merge, unmerge or delete in between.
   */
  pauseAfterMatch?: () => Promise<void>;
  /** How long a Next.js digest alert waits for its other side, a skew alert for its burst (default 30 s each). */
  nextjsHold?: { pairMs: number; burstMs: number };
  /** Session replays: the blob store and limits (src/pipeline/replays/); replay items are filtered without. */
  replays?: ReplayDeps;
  /**
   * The queue is backlogged (the worker's claim came back full): rows holding only replay items
   * wait a little behind the errors (REPLAY_DEFERRALS times at most), so a burst of errors is
   * digested at full speed and its alerts go out first; replays follow seconds later.
   */
  deferReplays?: boolean;
}

export interface DigestResult {
  /** events stored */
  events: number;
  /** events already stored (same project and event id) */
  duplicates: number;
  /** envelope items that are not events (sessions, client reports, attachments, …): handled by process-items.ts */
  skipped: number;
  /** queue rows or event items that could not be parsed or stored; dropped */
  failed: number;
}

/** sha256 hex: the production hash for grouping keys. */
export const sha256Hex: HashFn = (s) => createHash("sha256").update(s, "utf8").digest("hex");

const defaultNewEventId = () => randomUUID().replace(/-/g, "");

interface PreparedEvent {
  event: NormalizedEvent;
  grouping: GroupingResult;
  userKey: string | null;
  /** debug ids without an uploaded map: the event is re-symbolicated when they arrive */
  missingDebugIds?: string[];
  /** Next.js digest, deploy-skew class, decoded React error (src/core/nextjs) */
  nextjs: NextjsAnnotations;
  /** the stored payload, compressed before the write transaction so it holds the lock for SQL only */
  encoded: { blob: Buffer; size: number };
  /** the session replay the event was captured in (its `replayId` tag or replay context), if any */
  replayId: string | null;
}

interface PreparedItem {
  item: QueueItem;
  events: PreparedEvent[];
  /** attachments, feedback, sessions…, and the outcomes decided while parsing (process-items.ts) */
  extras?: ItemExtras;
  /**
   * The row's replay segments on their way to the blob store (read, scrubbed, written): awaited
   * with the others before the transaction, so their writes overlap the batch's other work.
   */
  replayWork?: Promise<void>;
}

/** Replay segments prepared at once per batch: their writes overlap, their memory stays bounded. */
const REPLAY_CONCURRENCY = 3;

/** At most `limit` of these tasks at once (a digest thread has one; tasks queue in order). */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.running += 1;
    try {
      return await task();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

const replaySlots = new Slots(REPLAY_CONCURRENCY);

/**
 * How often a replay-only row may be put back behind a backlog of errors (claims count as
 * attempts; the row keeps enough of them for the retries a failed batch needs), and how long.
 */
const REPLAY_DEFERRALS = 2;
const replayDelayMs = (attempts: number) => 2000 * 4 ** Math.max(0, attempts - 1);

/** An envelope holding replay items and nothing else (cheap: the items' payloads are not parsed). */
function replayOnly(item: QueueItem, limits: DigestDeps["limits"]): boolean {
  if (item.kind !== "envelope") return false;
  try {
    const { items } = parseEnvelope(item.body, limits);
    return items.length > 0 && items.every((i) => i.headers.type === "replay_event" || i.headers.type === "replay_recording");
  } catch {
    return false;
  }
}

type Outcome = "stored" | "duplicate";

export async function digestBatch(db: Db, items: QueueItem[], deps: DigestDeps): Promise<DigestResult> {
  const result: DigestResult = { events: 0, duplicates: 0, skipped: 0, failed: 0 };
  if (items.length === 0) return result;
  const projects = await digestProjects(db, [...new Set(items.map((i) => i.projectId))], deps);
  const prepared: PreparedItem[] = [];
  const dropped: number[] = [];
  /** outcomes of rows dropped while parsing (written with the transaction that deletes them) */
  const rejected = new OutcomeTally();
  /** replay-only rows put back behind a backlog of errors (deps.deferReplays) */
  const deferred: QueueItem[] = [];
  for (const item of items) {
    if (deps.deferReplays && item.attempts <= REPLAY_DEFERRALS && replayOnly(item, deps.limits)) {
      deferred.push(item);
      continue;
    }
    const project = projects.get(item.projectId);
    if (project === undefined) {
      deps.log.warn({ queueId: item.id, projectId: item.projectId }, "digest: project no longer exists; item dropped");
      result.failed += 1;
      dropped.push(item.id);
      continue;
    }
    try {
      prepared.push(await prepareItem(item, project, deps, result));
    } catch (err) {
      deps.log.warn({ queueId: item.id, projectId: item.projectId, code: errorCode(err) }, "digest: item could not be parsed; dropped");
      result.failed += 1;
      dropped.push(item.id);
      invalidRow(rejected, item, err);
    }
  }

  // Every row's replay segments are in the blob store before any row commits; a failure to write
  // one (not bad input: that was counted) fails the batch, whose rows are claimed again later.
  await Promise.all(prepared.map((p) => p.replayWork));
  // Which issues own the batch's hashes, read outside the write transaction (SQLite's writer lock
  // is held for writing only); the transaction locks them and reads the owners again.
  const candidates = await matchIssues(db, prepared);
  await deps.pauseAfterMatch?.();
  try {
    const done = await retrying(deps, { items: items.length }, candidates, async (issueIds) => {
      const tally = new OutcomeTally();
      const txStarted = performance.now();
      let digested: number[] = [];
      let waiting: QueueItem[] = [];
      const outcomes = await writeTx(db, async (tx) => {
        digested = [];
        waiting = [];
        // Sparkline and tag counts: aggregated over the batch, one upsert per row (src/storage/issues/stats.ts).
        const stats = new IssueStatsBatch();
        const memo = await BatchMemo.load(tx, prepared, deps, issueIds);
        const all = await storeItems(tx, prepared, deps, tally, memo, stats, waiting);
        await memo.counters.flush(tx);
        await recordCrashFreeTriggers(tx, memo.sessionReleases, deps.now);
        await writeIssueStats(tx, stats);
        digested = withoutWaiting([...prepared.map((p) => p.item.id), ...dropped], waiting);
        await markDigested(db, tx, digested);
        await writeOutcomes(tx, tally, rejected);
        return all;
      });
      deps.onWriteTx?.(performance.now() - txStarted);
      return { tally, outcomes, digested, waiting };
    });
    publishOutcomes(done.tally, rejected);
    count(result, done.outcomes);
    await release(db, done.digested, deps);
    await postpone(db, done.waiting, deps);
    await deferReplayRows(db, deferred, deps);
    return result;
  } catch (err) {
    deps.log.error({ err: errorSummary(err), items: items.length }, "digest: batch transaction failed; retrying item by item");
  }
  await digestOneByOne(db, prepared, dropped, deps, result, rejected);
  await deferReplayRows(db, deferred, deps);
  return result;
}

/** Replay-only rows back in the queue for a moment; if this fails they return after their lease. */
async function deferReplayRows(db: Db, rows: QueueItem[], deps: DigestDeps): Promise<void> {
  if (rows.length === 0) return;
  try {
    await postponeQueued(
      db,
      rows.map((r) => ({ id: r.id, availableAt: deps.now + replayDelayMs(r.attempts) })),
    );
  } catch (err) {
    deps.log.warn(
      { rows: rows.length, err: errorSummary(err) },
      "digest: deferred replay rows not rescheduled; they return after their lease",
    );
  }
}

/**
 * After the main transaction committed: the rows leave the queue (SQLite: its own file) and what
 * they held is erased. A failure here loses nothing: the next claim of these rows deletes them.
 */
async function release(db: Db, ids: number[], deps: DigestDeps): Promise<void> {
  try {
    await releaseDigested(db, ids);
  } catch (err) {
    deps.log.warn({ rows: ids.length, err: errorSummary(err) }, "digest: queue rows not deleted yet; the next claim will");
  }
  eraseDeletedContent(queueStore(db), deps.now);
}

function withoutWaiting(ids: number[], waiting: QueueItem[]): number[] {
  if (waiting.length === 0) return ids;
  const skip = new Set(waiting.map((w) => w.id));
  return ids.filter((id) => !skip.has(id));
}

/**
 * Rows that wait (a check-in whose monitor does not exist yet) become claimable again after a
 * short, growing pause instead of at the end of their lease. Failing here loses nothing: the row
 * is then claimed once its lease ends.
 */
async function postpone(db: Db, waiting: QueueItem[], deps: DigestDeps): Promise<void> {
  if (waiting.length === 0) return;
  deps.log.debug(
    { queueIds: waiting.map((w) => w.id), attempts: waiting.map((w) => w.attempts) },
    "digest: check-in waits for its monitor",
  );
  try {
    await postponeQueued(
      db,
      waiting.map((w) => ({ id: w.id, availableAt: deps.now + monitorWaitMs(w.attempts) })),
    );
  } catch (err) {
    deps.log.warn({ rows: waiting.length, err: errorSummary(err) }, "digest: waiting rows not rescheduled; they return after their lease");
  }
}

/**
 * Fallback when the batch transaction failed: isolate the item that breaks it. An item that fails
 * alone is left for a later claim (the failure may be transient) until it has been tried
 * `maxAttempts` times, then dropped. When nothing at all can be written, rethrow: the database is
 * the problem, and the worker backs off.
 */
async function digestOneByOne(
  db: Db,
  prepared: PreparedItem[],
  dropped: number[],
  deps: DigestDeps,
  result: DigestResult,
  rejected: OutcomeTally,
): Promise<void> {
  const maxAttempts = deps.maxAttempts ?? 5;
  let written = 0;
  let lastError: unknown;
  for (const p of prepared) {
    try {
      let tally = new OutcomeTally();
      let waiting: QueueItem[] = [];
      const outcomes = await retrying(deps, { queueId: p.item.id }, [], (issueIds) => {
        tally = new OutcomeTally();
        return writeTx(db, async (tx) => {
          waiting = [];
          const stats = new IssueStatsBatch();
          const memo = await BatchMemo.load(tx, [p], deps, issueIds);
          const o = await storeItems(tx, [p], deps, tally, memo, stats, waiting);
          await memo.counters.flush(tx);
          await recordCrashFreeTriggers(tx, memo.sessionReleases, deps.now);
          await writeIssueStats(tx, stats);
          if (waiting.length === 0) await markDigested(db, tx, [p.item.id]);
          await writeOutcomes(tx, tally);
          return o;
        });
      });
      if (waiting.length === 0) await release(db, [p.item.id], deps);
      await postpone(db, waiting, deps);
      publishOutcomes(tally);
      count(result, outcomes);
      written += 1;
    } catch (err) {
      lastError = err;
      if (p.item.attempts < maxAttempts) {
        deps.log.warn(
          { queueId: p.item.id, attempts: p.item.attempts, err: errorSummary(err) },
          "digest: item failed; will retry after its lease",
        );
        continue;
      }
      deps.log.error({ queueId: p.item.id, attempts: p.item.attempts, err: errorSummary(err) }, "digest: item failed too often; dropped");
      dropped.push(p.item.id);
      result.failed += p.events.length;
      invalidRow(rejected, p.item, err);
    }
  }
  if (dropped.length > 0) {
    try {
      await writeTx(db, async (tx) => {
        await markDigested(db, tx, dropped);
        await writeOutcomes(tx, rejected);
      });
      await release(db, dropped, deps);
      publishOutcomes(rejected);
      written += 1;
    } catch (err) {
      lastError = err;
    }
  }
  if (written === 0 && lastError !== undefined) throw lastError;
}

/** Times one write transaction starts again when it must (lock order, a deadlock the database broke). */
const MAX_TX_ATTEMPTS = 6;

/**
 * Runs a write transaction, again when it had to stop for the lock order (an issue that turned up
 * below the ones held: it is locked first next time, `issueIds`) or PostgreSQL aborted it to break
 * a deadlock or a serialization conflict. The lock order leaves no deadlock between Errata's own
 * transactions; a retry that still happens is a warning, and any other failure is the caller's.
 */
async function retrying<T>(
  deps: DigestDeps,
  ctx: Record<string, unknown>,
  issueIds: number[],
  run: (issueIds: number[]) => Promise<T>,
): Promise<T> {
  let ids = issueIds;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run(ids);
    } catch (err) {
      if (attempt >= MAX_TX_ATTEMPTS) throw err;
      if (err instanceof IssueLockOrderError) {
        deps.log.debug(
          { ...ctx, issues: err.ids, attempt },
          "digest: an issue changed between matching and locking; the transaction starts again",
        );
        ids = [...new Set([...ids, ...err.ids])];
      } else if (isTransientTxError(err)) {
        deps.log.warn(
          { ...ctx, attempt, err: errorSummary(err) },
          "digest: the database aborted the transaction (deadlock or serialization); retried",
        );
      } else throw err;
    }
  }
}

function count(result: DigestResult, outcomes: Outcome[]): void {
  for (const o of outcomes) {
    if (o === "stored") result.events += 1;
    else result.duplicates += 1;
  }
}

// ---------------------------------------------------------------------------------------------
// Parsing (outside the transaction)

async function prepareItem(item: QueueItem, project: DigestProject, deps: DigestDeps, result: DigestResult): Promise<PreparedItem> {
  const symbolicate = deps.symbolicate ? (e: NormalizedEvent) => deps.symbolicate?.(e, item.projectId) : undefined;
  const newId = deps.newEventId ?? defaultNewEventId;
  const events: PreparedEvent[] = [];
  const ctx = { receivedAt: item.receivedAt, clientIp: item.clientIp };
  if (item.kind === "store") {
    const raw = parseJsonObject(item.body, "store");
    const eventId = normalizeEventId(raw.event_id) ?? newId();
    events.push(await prepareOrSalvage(raw, { ...ctx, eventId }, project, deps, symbolicate));
    return { item, events };
  }
  const envelope = parseEnvelope(item.body, deps.limits);
  let headerId = normalizeEventId(envelope.headers.event_id);
  // The SDK's clock at send time (epoch ms): normalisation corrects clock drift with it.
  const sentSecs = parseTimestamp(envelope.headers.sent_at);
  const sentAt = sentSecs === undefined ? undefined : sentSecs * 1000;
  const extras = newExtras();
  for (const [index, entry] of envelope.items.entries()) {
    let raw: Record<string, unknown>;
    /** set when the event item is unusable: acknowledged, so stored empty with this note */
    let unusable: ProcessingNote | undefined;
    try {
      if (entry.headers.type === "event") raw = parseJsonObject(entry.payload, "event");
      else {
        // Everything else is process-items' business; CSP reports come back as event JSON.
        const asEvent = collectItem(extras, item, envelope.headers, entry, deps.now, project.scrub);
        if (asEvent === undefined) {
          result.skipped += 1;
          continue;
        }
        raw = asEvent;
      }
    } catch (err) {
      if (entry.headers.type !== "event") {
        deps.log.warn({ queueId: item.id, itemIndex: index, code: errorCode(err) }, "digest: item payload is unusable; dropped");
        result.skipped += 1;
        invalidItem(extras, item, entry, err);
        continue;
      }
      // Ingest answered 200 with this id (it does not parse events behind a header id): what it
      // acknowledged is stored, here as an empty event that says why.
      deps.log.warn({ queueId: item.id, itemIndex: index, code: errorCode(err) }, "digest: event payload is unusable; stored empty");
      raw = {};
      unusable = {
        type: "invalid_event",
        detail: `The event payload could not be read (${errorCode(err)}); an empty event was stored with its id.`,
      };
    }
    // The envelope header's id belongs to its (first) event; any further one uses its own.
    const eventId = headerId ?? normalizeEventId(raw.event_id) ?? newId();
    headerId = undefined;
    events.push(await prepareOrSalvage(raw, { ...ctx, eventId, sentAt }, project, deps, symbolicate, unusable));
  }
  // Replay segments: read, scrubbed and in the blob store before the transaction (replays/),
  // started now and awaited with the batch's others (digestBatch).
  const replayWork = extras.replay
    ? replaySlots.run(() => prepareReplayItems(extras, item, normalizeEventId(envelope.headers.event_id), project.scrub, deps.replays))
    : undefined;
  // Handled now (digestBatch awaits it later): a failure before then is not an unhandled rejection.
  replayWork?.catch(() => {});
  return { item, events, extras, replayWork };
}

type EventContext = { eventId: string; receivedAt: number; clientIp: string | null; sentAt?: number };
type Symbolicate = (event: NormalizedEvent) => Promise<{ missingDebugIds: string[] } | undefined> | undefined;

/**
 * prepareEvent, and when any step throws on this payload (a bug we have not met yet), the event
 * again with only its id, time and level, and a note: an acknowledged event is never dropped.
 */
async function prepareOrSalvage(
  raw: Record<string, unknown>,
  ctx: EventContext,
  project: DigestProject,
  deps: DigestDeps,
  symbolicate?: Symbolicate,
  note?: ProcessingNote,
): Promise<PreparedEvent> {
  try {
    return await prepareEvent(raw, ctx, project, deps.hash, symbolicate, note);
  } catch (err) {
    deps.log.error(
      { eventId: ctx.eventId, err: errorSummary(err) },
      "digest: event could not be processed; stored with its id and time only",
    );
    const kept = { timestamp: raw.timestamp, level: raw.level, platform: raw.platform };
    const detail = `The event could not be processed (${errorSummary(err).name ?? "error"}); only its id, time and level were kept.`;
    return prepareEvent(kept, ctx, project, deps.hash, undefined, { type: "unprocessable", detail });
  }
}

async function prepareEvent(
  raw: Record<string, unknown>,
  ctx: EventContext,
  project: DigestProject,
  hash: HashFn,
  symbolicate?: Symbolicate,
  note?: ProcessingNote,
): Promise<PreparedEvent> {
  const normalized = normalizeEvent(raw, ctx);
  if (note) normalized.errata.notes.push(note);
  applyUserAgentContexts(normalized); // browser / os / device contexts from the User-Agent, as Relay
  // Readable frames before anything reads them (scrubbing, grouping); never throws.
  const sourcemaps = symbolicate ? await symbolicate(normalized) : undefined;
  // Secrets go before grouping (titles, culprits) and storage see the event.
  const event = scrubEvent(normalized, project.scrub);
  // Next.js rules: index the digest, classify deploy skew, decode React errors; they may set the
  // fingerprint grouping reads (only when the SDK sent none) and the title.
  const nextjs = annotateNextjs(event);
  const grouping = describeWithNextjs(groupEventForProject(event, project.grouping, ctx.receivedAt, hash, project.rules), event, nextjs);
  event.errata.grouping = {
    version: grouping.version,
    hash: grouping.hashes[0] ?? "",
    source: grouping.source,
    components: grouping.components,
    hashes: grouping.hashes,
    variants: grouping.variants,
    ...(grouping.previous ? { previous: grouping.previous } : {}),
  };
  // Last step: nothing changes the event after this, and the blob is what gets stored.
  const encoded = encodePayload(event);
  return {
    event,
    grouping,
    userKey: userKeyOf(event),
    missingDebugIds: sourcemaps?.missingDebugIds,
    nextjs,
    encoded,
    replayId: replayIdOfEvent(event),
  };
}

/** Identifies the end user for exact per-issue user counts: id, then email, username, IP. */
export function userKeyOf(event: NormalizedEvent): string | null {
  const u = event.user;
  if (!u) return null;
  if (u.id) return `id:${u.id}`;
  if (u.email) return `email:${u.email}`;
  if (u.username) return `username:${u.username}`;
  if (u.ip_address) return `ip:${u.ip_address}`;
  return null;
}

function traceIdOf(event: NormalizedEvent): string | null {
  const id = event.contexts?.trace?.trace_id;
  return typeof id === "string" && id ? id : null;
}

// ---------------------------------------------------------------------------------------------
// Storing (inside the transaction)

/** The releases named by these items' events (recorded once per batch for release ordering). */
function releasesOf(prepared: PreparedItem[]): SeenRelease[] {
  const out: SeenRelease[] = [];
  for (const p of prepared) {
    for (const e of p.events) {
      if (e.event.release) out.push({ projectId: p.item.projectId, version: e.event.release, seenAt: p.item.receivedAt });
    }
  }
  return out;
}

/** Every hash an event may be grouped by, in lookup order: the project's version, then the previous one's. */
function lookupOf(e: PreparedEvent): string[] {
  return [...e.grouping.hashes, ...(e.grouping.previous?.hashes ?? [])];
}

/** The batch's lookup hashes by project. */
function hashesByProject(prepared: PreparedItem[]): Map<number, string[]> {
  const out = new Map<number, Set<string>>();
  for (const p of prepared) {
    const set = out.get(p.item.projectId) ?? new Set<string>();
    for (const e of p.events) for (const h of lookupOf(e)) set.add(h);
    out.set(p.item.projectId, set);
  }
  return new Map([...out].map(([k, v]) => [k, [...v]]));
}

/**
 * Matching, before the write transaction: the issues that own the batch's hashes now. Only a
 * guess — a merge, delete or unmerge may change it before the transaction locks them — that
 * lets the transaction take its issue locks in one ordered statement first.
 */
async function matchIssues(db: Db, prepared: PreparedItem[]): Promise<number[]> {
  const ids = new Set<number>();
  for (const [projectId, hashes] of hashesByProject(prepared)) {
    for (const id of (await readHashOwners(db, projectId, hashes)).values()) ids.add(id);
  }
  return [...ids];
}

/**
 * What one write transaction learnt and holds:
 * - the (project, event id) pairs already stored: one query per batch instead of one per event,
 *   kept up to date as the batch places events (an id twice in one batch is a duplicate then);
 * - the issue locks (src/storage/issues/issue-locks.ts: issue rows by id, then what hangs off
 *   them, then project rows) and, under them, the owner of every hash of the batch: a locked
 *   issue's hashes cannot move or go until the commit, and a hash without an owner gets one only
 *   under its project's row lock, so the answers are settled once read under the locks.
 */
class BatchMemo {
  private readonly ids = new Set<string>();
  /** project → hash → owning issue, read under the locks */
  private readonly owners = new Map<number, Map<string, number>>();
  /** projects whose row this transaction locked to register hashes (ascending) */
  private readonly projectLocks = new Set<number>();
  readonly locks = new IssueLocks();
  /** releases whose session counters this transaction changed (the crash-free alert trigger) */
  readonly sessionReleases = new TouchedReleases();

  /** issue counters deferred to the end of the transaction (one update per issue per batch) */
  constructor(readonly counters: IssueCounters) {}

  static async load(tx: Tx, prepared: PreparedItem[], deps: DigestDeps, candidates: number[]): Promise<BatchMemo> {
    const byProject = new Map<number, string[]>();
    for (const p of prepared) {
      const list = byProject.get(p.item.projectId) ?? [];
      for (const e of p.events) list.push(e.event.event_id);
      byProject.set(p.item.projectId, list);
    }
    const out = new BatchMemo(new IssueCounters(deps.now, deps.lifecycle));
    for (const [projectId, eventIds] of byProject) {
      // Chunks keep the IN list well under SQLite's and PostgreSQL's bound-parameter limits.
      for (let i = 0; i < eventIds.length; i += 500) {
        for (const id of await existingEventIds(tx, projectId, eventIds.slice(i, i + 500))) out.add(projectId, id);
      }
    }
    await out.lockOwners(tx, hashesByProject(prepared), candidates);
    return out;
  }

  /**
   * Step 1 of the lock order: the matched issues, locked in id order, then the owners read again
   * under the locks. An owner that changed meanwhile (the hash merged into another issue, moved
   * by an unmerge) is locked too — above the ones held, or the transaction starts again with it —
   * and an owner that no longer exists (deleted) leaves its hashes unowned: a new issue starts.
   */
  private async lockOwners(tx: Tx, lookups: Map<number, string[]>, candidates: number[]): Promise<void> {
    await this.locks.take(tx, candidates);
    for (let round = 0; ; round += 1) {
      for (const [projectId, hashes] of lookups) this.owners.set(projectId, await readHashOwners(tx, projectId, hashes));
      const unlocked = new Map<number, number>();
      for (const [projectId, owners] of this.owners) {
        for (const id of owners.values()) if (!this.locks.has(id)) unlocked.set(id, projectId);
      }
      if (unlocked.size === 0) return;
      // Owners that keep changing under a stream of triage: start over rather than chase them.
      if (round >= 5) throw new IssueLockOrderError([...unlocked.keys()]);
      const found = await this.locks.take(tx, unlocked.keys());
      for (const [id, projectId] of unlocked) if (!found.has(id)) await dropDanglingHashes(tx, projectId, [id]);
    }
  }

  /** The issue owning the event's hashes (the first hash in lookup order that has an owner). */
  ownerOf(projectId: number, lookup: string[]): number | undefined {
    const owners = this.owners.get(projectId);
    for (const h of lookup) {
      const id = owners?.get(h);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  isOwned(projectId: number, hash: string): boolean {
    return this.owners.get(projectId)?.has(hash) ?? false;
  }

  /** Reads these hashes' owners again (after registering hashes: ours, or a concurrent writer's). */
  async refreshOwners(tx: Tx, projectId: number, hashes: string[]): Promise<void> {
    const owners = this.owners.get(projectId) ?? new Map<string, number>();
    for (const h of hashes) owners.delete(h);
    for (const [h, id] of await readHashOwners(tx, projectId, hashes)) owners.set(h, id);
    this.owners.set(projectId, owners);
  }

  /**
   * Step 3 of the lock order, before the first hash of a project is registered: its row (the
   * short id counter). Registrations in a project are serialised by it, so the owners of its
   * hashes read after it are final. Issues cannot be locked after this (`seal`).
   */
  async lockProject(tx: Tx, projectId: number): Promise<boolean> {
    if (this.projectLocks.has(projectId)) return false;
    const above = [...this.projectLocks].some((id) => id > projectId);
    if (above) throw new Error("digest: project rows must be locked in ascending order");
    this.locks.seal();
    await lockProjectRow(tx, projectId);
    this.projectLocks.add(projectId);
    return true;
  }

  has(projectId: number, eventId: string): boolean {
    return this.ids.has(`${projectId}:${eventId}`);
  }

  add(projectId: number, eventId: string): void {
    this.ids.add(`${projectId}:${eventId}`);
  }
}

/**
 * Stores a batch's items in three steps, so that the events go in with one INSERT (on PostgreSQL
 * one round trip for the batch instead of one per event):
 *   1. each event's issue, found or created, in batch order (a later event finds the issue an
 *      earlier one created; an event id seen before, stored or earlier in the batch, is a duplicate);
 *   2. the events, ON CONFLICT DO NOTHING (another worker may have stored one meanwhile); an
 *      issue created in step 1 none of whose events was stored is removed again;
 *   3. the stored events' users, one INSERT too; then, in batch order, what each stored event does
 *      to its issue (flags, stats, counters, lifecycle and alerts) and the item's other contents.
 */
async function storeItems(
  tx: Tx,
  prepared: PreparedItem[],
  deps: DigestDeps,
  tally: OutcomeTally,
  memo: BatchMemo,
  stats: IssueStatsBatch,
  /** rows handed back undigested (checkInWaits) */
  waiting: QueueItem[],
): Promise<Outcome[]> {
  const placed: Array<Array<Placed | undefined>> = prepared.map(() => []);
  // By project (batch order within one): project rows are locked in ascending order (BatchMemo).
  const order = [...prepared.keys()].sort((a, b) => (prepared[a]?.item.projectId ?? 0) - (prepared[b]?.item.projectId ?? 0) || a - b);
  for (const i of order) {
    const p = prepared[i] as PreparedItem;
    const list = placed[i] as Array<Placed | undefined>;
    for (const e of p.events) list.push(await placeEvent(tx, p.item, e, memo));
  }
  const rows = placed.flat().filter((x): x is Placed => x !== undefined);
  const inserted = await insertEvents(
    tx,
    rows.map((x) => x.row),
  );
  const isStored = (x: Placed) => inserted.has(eventKey(x.row.projectId, x.row.eventId));
  await dropUnusedIssues(tx, rows, isStored, memo);
  // After the events (the lock order: issue rows, what hangs off them, then shared rows) and
  // before the lifecycle step, which reads a release's order.
  await recordReleases(tx, releasesOf(prepared), deps.now);
  // Users too in one statement; each new (issue, user) pair is new for its first event only.
  const newUsers = await addIssueUsers(
    tx,
    rows.filter((x) => x.row.userKey !== null && isStored(x)).map((x) => ({ issueId: x.issueId, userKey: x.row.userKey as string })),
  );
  const out: Outcome[] = [];
  for (const [i, p] of prepared.entries()) {
    for (const [j, e] of p.events.entries()) {
      const x = placed[i]?.[j];
      const stored = x !== undefined && isStored(x);
      if (stored) await recordStored(tx, p.item, e, x, newUsers, deps, memo, stats);
      recordEventOutcome(tally, p.item, e.event, stored);
      out.push(stored ? "stored" : "duplicate");
    }
    if (p.events.length === 0 && (await checkInWaits(tx, p.item, p.extras))) {
      waiting.push(p.item);
      continue;
    }
    await storeExtras(tx, p.item, p.extras, tally, deps.now, memo.sessionReleases, deps.replays?.config.maxReplaySize);
  }
  return out;
}

/** An event with its issue, ready to insert (step 1 of storeItems). */
interface Placed {
  issueId: number;
  /** this event created the issue */
  created: boolean;
  row: NewEvent;
}

/**
 * The issue that owns the event's hashes, locked; undefined when none does. Before creating one,
 * the project's row is locked and the owners read again: another worker may have created the
 * issue since (its lock is then taken first, in a new transaction, if it is not held).
 */
async function lockedOwner(tx: Tx, memo: BatchMemo, projectId: number, lookup: string[]): Promise<number | undefined> {
  let id = memo.ownerOf(projectId, lookup);
  if (id === undefined && (await memo.lockProject(tx, projectId))) {
    await memo.refreshOwners(tx, projectId, lookup);
    id = memo.ownerOf(projectId, lookup);
  }
  if (id === undefined || memo.locks.has(id)) return id;
  throw new IssueLockOrderError([id]);
}

/** Step 1: the event's issue, found or created; undefined when the event id is a duplicate. */
async function placeEvent(tx: Tx, item: QueueItem, p: PreparedEvent, memo: BatchMemo): Promise<Placed | undefined> {
  const { event, grouping } = p;
  const projectId = item.projectId;
  if (memo.has(projectId, event.event_id)) return undefined;
  // Taken now: the same id later in the batch is a duplicate, stored or not.
  memo.add(projectId, event.event_id);

  const seenAt = item.receivedAt;
  const release = event.release ?? null;
  // The project's version first; during a transition the previous version's hashes match too.
  const lookup = lookupOf(p);
  let issueId = await lockedOwner(tx, memo, projectId, lookup);
  let created = false;
  if (issueId === undefined) {
    const res = await insertIssue(tx, {
      projectId,
      title: grouping.title,
      culprit: grouping.culprit,
      type: grouping.type,
      level: event.level,
      metadata: grouping.metadata,
      seenAt,
      release,
      hashes: grouping.hashes,
      groupingVersion: grouping.version,
      platform: typeof event.platform === "string" ? event.platform : null,
    });
    issueId = res.id;
    created = res.created;
    if (created) memo.locks.adopt(issueId);
    // Lost to a writer outside the project lock (re-symbolication aliasing a hash): its issue is
    // locked first when the transaction starts again.
    else if (!memo.locks.has(issueId)) throw new IssueLockOrderError([issueId]);
    await memo.refreshOwners(tx, projectId, lookup);
  } else {
    // Every variant (and, in a transition, the new version's hashes) now points at this issue.
    const unknown = grouping.hashes.filter((h) => !memo.isOwned(projectId, h));
    if (unknown.length > 0) {
      await memo.lockProject(tx, projectId);
      await addIssueHashes(tx, projectId, issueId, unknown, grouping.version);
      await memo.refreshOwners(tx, projectId, unknown);
    }
  }
  const row: NewEvent = {
    projectId,
    issueId,
    eventId: event.event_id,
    receivedAt: item.receivedAt,
    timestamp: Math.round(event.timestamp * 1000),
    level: event.level,
    platform: event.platform,
    release,
    environment: event.environment ?? null,
    title: grouping.title,
    culprit: grouping.culprit,
    userKey: p.userKey,
    traceId: traceIdOf(event),
    digest: p.nextjs.digest?.key ?? null,
    payload: event,
    encoded: p.encoded,
  };
  return { issueId, created, row };
}

/**
 * Another worker stored an event concurrently (PostgreSQL): an issue this batch created for events
 * of which none was stored would stay empty; it goes.
 */
async function dropUnusedIssues(tx: Tx, rows: Placed[], isStored: (x: Placed) => boolean, memo: BatchMemo): Promise<void> {
  const used = new Set(rows.filter(isStored).map((x) => x.issueId));
  for (const x of rows) {
    if (!x.created || used.has(x.issueId)) continue;
    await deleteIssueRows(tx, x.issueId);
    memo.locks.release(x.issueId);
    memo.counters.forget(x.issueId);
  }
}

/** Step 3: what a stored event does to its issue. */
async function recordStored(
  tx: Tx,
  item: QueueItem,
  p: PreparedEvent,
  placed: Placed,
  newUsers: Set<string>,
  deps: DigestDeps,
  memo: BatchMemo,
  stats?: IssueStatsBatch,
): Promise<void> {
  const { event, grouping } = p;
  const { issueId, created } = placed;
  const projectId = item.projectId;
  const seenAt = item.receivedAt;
  const release = event.release ?? null;
  // An error seen in a session replay: linked both ways (the replay lists it, the issue shows the replay).
  if (p.replayId)
    await linkReplayError(tx, {
      projectId,
      replayId: p.replayId,
      eventId: event.event_id,
      issueId,
      timestamp: Math.round(event.timestamp * 1000),
    });
  if (p.missingDebugIds?.length)
    await recordEventDebugIds(tx, { projectId, eventId: event.event_id, debugIds: p.missingDebugIds, receivedAt: item.receivedAt });
  // delete: true for the pair's first stored event of the batch only.
  const newUser = p.userKey !== null && newUsers.delete(issueUserKey(issueId, p.userKey));
  const update = { seenAt, level: event.level, eventId: event.event_id, release, newUser };
  if (p.nextjs.classification) await addIssueFlag(tx, issueId, p.nextjs.classification);
  stats?.add(issueId, projectId, seenAt, statTagsOf(event, p.nextjs.digest?.key));
  // The issue's state needs nothing for this batch: count the event with the others at the end
  // (unless a frequency rule of the project must see each event).
  if (!created && memo.counters.canDefer(issueId) && !(await countsEachEvent(tx, projectId, deps.now))) {
    memo.counters.defer(issueId, update);
    return;
  }
  const state = await recordIssueEvent(tx, issueId, update);
  memo.counters.counted(issueId, state);
  await applyEventLifecycle(
    tx,
    {
      projectId,
      issueId,
      created,
      state,
      eventId: event.event_id,
      receivedAt: item.receivedAt,
      release,
      alert: { event, title: grouping.title, culprit: grouping.culprit, newUser, digestKey: p.nextjs.digest?.key ?? null },
      nextjsHold: deps.nextjsHold ?? DEFAULT_NEXTJS_HOLD,
    },
    deps.now,
    deps.lifecycle,
  );
}

/** How a project's events are processed: grouping version (+ transition) and PII scrubbing. */
interface DigestProject {
  grouping: ProjectGrouping;
  /** the project's fingerprint and stack-trace rules, parsed (memoised by their text) */
  rules: ProjectGroupingRules;
  scrub: ScrubSettings;
}

async function digestProjects(db: Db, projectIds: number[], deps: DigestDeps): Promise<Map<number, DigestProject>> {
  const rows = await readProjectProcessing(db, projectIds);
  const out = new Map<number, DigestProject>();
  for (const [id, r] of rows) {
    out.set(id, {
      grouping: {
        version: r.groupingVersion,
        previous: r.groupingPrevious,
        switchedAt: r.groupingSwitchedAt,
        transitionDays: deps.groupingTransitionDays,
      },
      rules: groupingRulesOf(r.settings),
      scrub: readScrubSettings(r.settings),
    });
  }
  return out;
}

function errorCode(err: unknown): string {
  return isAppError(err) ? err.code : "internal_error";
}

/** Error name/code/message only: SDK payload content never reaches the log. */
function errorSummary(err: unknown): { name?: string; code?: string; message?: string } {
  if (!(err instanceof Error)) return { message: String(err).slice(0, 200) };
  return { name: err.name, code: (err as { code?: string }).code, message: err.message.slice(0, 300) };
}
