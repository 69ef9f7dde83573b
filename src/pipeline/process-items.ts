/**
 * The digest worker's handling of everything in an envelope that is not an error event, and the
 * outcome of every item (ARCHITECTURE: exactly one outcome per item). digest-batch.ts calls in at
 * three points:
 *
 *   parse (outside the transaction)   collectItem(): attachments, user reports, feedback, sessions
 *                                     and client reports are parsed and checked; cron check-ins
 *                                     (`check_in`, monitor-checkins.ts); CSP reports
 *                                     (`raw_security`) come back as event JSON for the event path;
 *                                     anything unsupported is counted filtered(unsupported_item)
 *   store (inside the batch tx)       storeExtras(): rows written next to the events;
 *                                     recordEventOutcome(): accepted or filtered(duplicate)
 *   commit                            writeOutcomes() in the same transaction, then
 *                                     publishOutcomes() to /metrics once it committed.
 */
import { createHash } from "node:crypto";
import { AppError, type ErrorCode, isAppError } from "../core/errors";
import type { NormalizedEvent } from "../core/event";
import { type CheckIn, parseCheckIn } from "../core/monitors/checkin";
import {
  hourStart,
  isSupportedItem,
  itemCategory,
  type OutcomeCount,
  type OutcomeTally,
  parseClientReport,
  REASONS,
} from "../core/outcomes";
import { DEFAULT_SCRUB_SETTINGS, type ScrubSettings, scrubData } from "../core/scrub/scrub-event";
import {
  applySessionUpdate,
  type Parsed,
  parseSessionAggregates,
  parseSessionUpdate,
  SESSION_MAX_AGE_MS,
  type SessionAggregates,
  type SessionDelta,
  type SessionUpdate,
} from "../core/sessions";
import { type MetricRecord, metricsOfContainer } from "../core/trace-metrics";
import { type LogRecord, logsOfContainer, type SpanRecord, spansOfContainer, spansOfTransaction } from "../core/traces";
import type { EnvelopeItem } from "../ingest/parse-envelope";
import { normalizeEventId, parseJsonObject } from "../ingest/parse-envelope";
import { securityReportToEvent } from "../ingest/security";
import { countOutcomeMetrics } from "../metrics";
import type { Tx } from "../storage/dialect";
import { insertAttachment } from "../storage/events/attachments";
import { addOutcomes } from "../storage/events/outcomes";
import { insertMetrics, type StoredMetric } from "../storage/events/trace-metrics";
import { insertLogs, insertSpans, type StoredLog } from "../storage/events/traces";
import { type FeedbackSource, upsertFeedback } from "../storage/feedback/feedback";
import { findMonitor } from "../storage/monitors/monitors";
import type { QueueItem } from "../storage/queue/queue";
import {
  addSessionCounts,
  addSessionUser,
  getSessionStates,
  markSessionUserCrashed,
  pruneSessionStates,
  putSessionState,
  type SessionBucketKey,
} from "../storage/releases/sessions";
import { type NewSegment, type StoreReplayResult, storeReplay } from "../storage/replays/replays";
import type { TouchedReleases } from "./alerts/record-crash-free";
import { MONITOR_WAIT_ATTEMPTS, storeCheckIn } from "./monitor-checkins";
import { checkInTime } from "./monitor-clock";
import { type PreparedReplay, prepareReplay, type RawReplay, type ReplayDeps } from "./replays/prepare-replay";

const HOUR_MS = 3_600_000;

interface AttachmentItem {
  kind: "attachment";
  eventId: string;
  name: string;
  contentType: string;
  attachmentType: string;
  data: Uint8Array;
}

interface FeedbackItem {
  kind: "feedback";
  category: string;
  feedbackId: string;
  eventId: string | null;
  name: string;
  email: string;
  comments: string;
  url: string | null;
  source: FeedbackSource;
  /** the session replay the feedback widget names (contexts.feedback.replay_id) */
  replayId?: string | null;
}

interface SessionItem {
  kind: "session";
  update: SessionUpdate;
}

interface SessionsItem {
  kind: "sessions";
  aggregates: SessionAggregates;
}

interface CheckInItem {
  kind: "check_in";
  checkIn: CheckIn;
}

/** Spans of a `span` or `transaction` item; `category` is what the item is counted as. */
interface SpansItem {
  kind: "spans";
  category: "span" | "transaction";
  spans: SpanRecord[];
}

interface LogsItem {
  kind: "logs";
  logs: StoredLog[];
}

/** A replay envelope's data, read, scrubbed and with its segments in the blob store (replays/prepare-replay.ts). */
interface ReplayItem {
  kind: "replay";
  replay: PreparedReplay;
}

interface MetricsItem {
  kind: "metrics";
  metrics: StoredMetric[];
}

type OtherItem = AttachmentItem | FeedbackItem | SessionItem | SessionsItem | SpansItem | LogsItem | MetricsItem | CheckInItem | ReplayItem;

/** Non-event items of one queue row, parsed, plus the outcomes already decided while parsing. */
export interface ItemExtras {
  items: OtherItem[];
  /** invalid / unsupported / client-discard counts of this row, written with its transaction */
  outcomes: OutcomeCount[];
  /** replay items as collected; prepareReplayItems() reads them (asynchronously) into a `replay` item */
  replay?: RawReplay;
}

export function newExtras(): ItemExtras {
  return { items: [], outcomes: [] };
}

function count(
  extras: ItemExtras,
  row: QueueItem,
  at: number,
  category: string,
  outcome: OutcomeCount["outcome"],
  reason = "",
  quantity = 1,
): void {
  extras.outcomes.push({ projectId: row.projectId, keyId: row.keyId, hour: hourStart(at), category, outcome, reason, quantity });
}

/**
 * Parses one non-event item of an envelope. Returns event JSON when the item is really an event
 * in another form (CSP reports), undefined otherwise (kept in `extras` or counted). Throws an
 * AppError for a payload that cannot be used; the caller counts it with `invalidItem`.
 */
export function collectItem(
  extras: ItemExtras,
  row: QueueItem,
  envelopeHeaders: Record<string, unknown>,
  entry: EnvelopeItem,
  now: number,
  scrub: ScrubSettings = DEFAULT_SCRUB_SETTINGS,
): Record<string, unknown> | undefined {
  const type = entry.headers.type;
  const at = row.receivedAt;
  if (!isSupportedItem(type)) {
    count(extras, row, at, itemCategory(type), "filtered", REASONS.unsupportedItem);
    return undefined;
  }
  const headerEventId = normalizeEventId(envelopeHeaders.event_id);
  switch (type) {
    case "raw_security":
    case "security":
      return securityReportToEvent(parseJsonObject(entry.payload, type), {
        release: entry.headers.sentry_release,
        environment: entry.headers.sentry_environment,
      });
    case "attachment":
      extras.items.push(attachmentOf(entry, headerEventId));
      return undefined;
    case "user_report":
      extras.items.push(userReportOf(parseJsonObject(entry.payload, type), entry, headerEventId));
      return undefined;
    case "feedback":
      extras.items.push(feedbackOf(parseJsonObject(entry.payload, type), headerEventId));
      return undefined;
    case "client_report": {
      const report = parseClientReport(parseJsonObject(entry.payload, type), at);
      for (const d of report?.discards ?? []) count(extras, row, report?.at ?? at, d.category, "client_discard", d.reason, d.quantity);
      count(extras, row, at, "internal", "accepted");
      return undefined;
    }
    case "check_in": {
      const parsed = parseCheckIn(parseJsonObject(entry.payload, type));
      if (parsed.ok) extras.items.push({ kind: "check_in", checkIn: parsed.value });
      else count(extras, row, at, "monitor", "invalid", "invalid_check_in");
      return undefined;
    }
    case "session":
      sessionOf(extras, row, parseSessionUpdate(parseJsonObject(entry.payload, type), at), (update) => ({ kind: "session", update }));
      return undefined;
    case "sessions":
      sessionOf(extras, row, parseSessionAggregates(parseJsonObject(entry.payload, type), Math.max(at, now)), (aggregates) => ({
        kind: "sessions",
        aggregates,
      }));
      return undefined;
    case "replay_event":
      extras.replay ??= { events: [], recordings: [] };
      extras.replay.events.push(parseJsonObject(entry.payload, type));
      return undefined;
    case "replay_recording":
      extras.replay ??= { events: [], recordings: [] };
      extras.replay.recordings.push(entry.payload);
      return undefined;
    case "span":
    case "transaction":
    case "log":
      collectTraceItem(extras, row, type, scrubData(parseJsonObject(entry.payload, type), scrub));
      return undefined;
    case "trace_metric": {
      const { records, dropped } = metricsOfContainer(scrubData(parseJsonObject(entry.payload, type), scrub), at);
      if (dropped > 0) count(extras, row, at, "trace_metric", "invalid", "invalid_metric", dropped);
      if (records.length > 0) extras.items.push({ kind: "metrics", metrics: records.map(metricWithDedupe) });
      return undefined;
    }
    default:
      count(extras, row, at, itemCategory(type), "filtered", REASONS.unsupportedItem);
      return undefined;
  }
}

/**
 * Spans and logs (src/core/traces.ts), scrubbed like events. Records that cannot be used are
 * counted invalid; the rest are accepted when stored. A transaction counts as one `transaction`
 * whatever its spans; span and log items count each record (`span`, `log_item`), as Sentry does.
 */
function collectTraceItem(
  extras: ItemExtras,
  row: QueueItem,
  type: "span" | "transaction" | "log",
  payload: Record<string, unknown>,
): void {
  const at = row.receivedAt;
  if (type === "log") {
    const { records, dropped } = logsOfContainer(payload);
    if (dropped > 0) count(extras, row, at, "log_item", "invalid", "invalid_log", dropped);
    if (records.length > 0) extras.items.push({ kind: "logs", logs: records.map(withDedupe) });
    return;
  }
  const { records, dropped } = type === "span" ? spansOfContainer(payload) : spansOfTransaction(payload);
  if (type === "span" && dropped > 0) count(extras, row, at, "span", "invalid", "invalid_span", dropped);
  if (records.length > 0) extras.items.push({ kind: "spans", category: type, spans: records });
  else if (type === "transaction") count(extras, row, at, "transaction", "invalid", "invalid_transaction");
}

/** A log record's content hash: re-delivery of the same record stores nothing twice. */
function withDedupe(l: LogRecord): StoredLog {
  const h = createHash("sha1").update(`${l.traceId}|${l.spanId}|${l.timestamp}|${l.level}|${l.body}|${l.attributes}`).digest("hex");
  return { ...l, dedupe: h };
}

/** A metric sample's content hash: re-delivery of the same sample stores nothing twice. */
function metricWithDedupe(m: MetricRecord): StoredMetric {
  const h = createHash("sha1")
    .update(`${m.traceId}|${m.spanId}|${m.timestamp}|${m.name}|${m.type}|${m.unit}|${m.value}|${m.attributes}`)
    .digest("hex");
  return { ...m, dedupe: h };
}

function sessionOf<T>(extras: ItemExtras, row: QueueItem, parsed: Parsed<T>, wrap: (v: T) => OtherItem): void {
  if (parsed.ok) {
    extras.items.push(wrap(parsed.value));
    return;
  }
  // Old session data is normal (offline clients); anything else is a broken payload.
  count(extras, row, row.receivedAt, "session", parsed.reason === "too_old" ? "filtered" : "invalid", parsed.reason);
}

/**
 * The row's replay items, read and stored in the blob store before the transaction; a replay that
 * cannot be used is counted invalid(<catalogue code>) once, as one `replay`.
 */
export async function prepareReplayItems(
  extras: ItemExtras,
  row: QueueItem,
  headerId: string | undefined,
  scrub: ScrubSettings,
  deps: ReplayDeps | undefined,
): Promise<void> {
  const raw = extras.replay;
  if (!raw) return;
  extras.replay = undefined;
  if (!deps) {
    count(extras, row, row.receivedAt, "replay", "filtered", REASONS.unsupportedItem);
    return;
  }
  try {
    extras.items.push({ kind: "replay", replay: await prepareReplay(raw, row.projectId, headerId, scrub, deps) });
  } catch (err) {
    // Bad input is counted and dropped; anything else (the blob store failing) is not the item's
    // fault: it propagates, the batch is not committed, and the row is claimed again later.
    if (!isAppError(err)) throw err;
    count(extras, row, row.receivedAt, "replay", "invalid", reasonOf(err));
  }
}

/** Counts an item whose payload could not be used: invalid(<catalogue code>). */
export function invalidItem(extras: ItemExtras, row: QueueItem, entry: EnvelopeItem, err: unknown): void {
  count(extras, row, row.receivedAt, itemCategory(entry.headers.type), "invalid", reasonOf(err));
}

/** Counts a whole queue row that could not be parsed (or failed too often): invalid(<code>). */
export function invalidRow(tally: OutcomeTally, row: QueueItem, err: unknown): void {
  tally.add(row.projectId, row.keyId, row.receivedAt, "default", "invalid", reasonOf(err));
}

/** The data category of a stored event: CSP reports are `security`, everything else `error`. */
export function eventCategory(event: NormalizedEvent): string {
  return (event as { type?: unknown }).type === "csp" ? "security" : "error";
}

/** An event's outcome: accepted, or filtered(duplicate) when the project already had its id. */
export function recordEventOutcome(tally: OutcomeTally, row: QueueItem, event: NormalizedEvent, stored: boolean): void {
  const category = eventCategory(event);
  if (stored) tally.add(row.projectId, row.keyId, row.receivedAt, category, "accepted");
  else tally.add(row.projectId, row.keyId, row.receivedAt, category, "filtered", REASONS.duplicate);
}

/**
 * Writes the non-event items of a row and adds their outcomes to the batch's tally; releases whose
 * session counters changed are noted in `touched` (the crash-free alert trigger looks at them).
 */
export async function storeExtras(
  tx: Tx,
  row: QueueItem,
  extras: ItemExtras | undefined,
  tally: OutcomeTally,
  now: number,
  touched?: TouchedReleases,
  maxReplaySize = Number.POSITIVE_INFINITY,
): Promise<void> {
  if (!extras) return;
  tally.addAll(extras.outcomes);
  for (const it of extras.items) {
    switch (it.kind) {
      case "attachment":
        await insertAttachment(tx, {
          projectId: row.projectId,
          eventId: it.eventId,
          name: it.name,
          contentType: it.contentType,
          attachmentType: it.attachmentType,
          data: it.data,
          createdAt: row.receivedAt,
        });
        tally.add(row.projectId, row.keyId, row.receivedAt, "attachment", "accepted");
        break;
      case "feedback":
        await upsertFeedback(tx, {
          projectId: row.projectId,
          feedbackId: it.feedbackId,
          eventId: it.eventId,
          name: it.name,
          email: it.email,
          comments: it.comments,
          url: it.url,
          source: it.source,
          replayId: it.replayId ?? null,
          createdAt: row.receivedAt,
        });
        tally.add(row.projectId, row.keyId, row.receivedAt, it.category, "accepted");
        break;
      case "session": {
        const counted = await storeSessionUpdate(tx, row.projectId, it.update, now);
        if (counted) touched?.add(row.projectId, counted.release, counted.environment);
        tally.add(row.projectId, row.keyId, row.receivedAt, "session", "accepted");
        break;
      }
      case "sessions":
        await storeSessionAggregates(tx, row.projectId, it.aggregates);
        if (it.aggregates.buckets.length > 0) touched?.add(row.projectId, it.aggregates.release, it.aggregates.environment);
        tally.add(row.projectId, row.keyId, row.receivedAt, "session", "accepted");
        break;
      case "check_in": {
        const outcome = await storeCheckIn(tx, {}, row.projectId, it.checkIn, checkInTime(row.receivedAt));
        if (outcome === "accepted") tally.add(row.projectId, row.keyId, row.receivedAt, "monitor", "accepted");
        else tally.add(row.projectId, row.keyId, row.receivedAt, "monitor", "filtered", outcome);
        break;
      }
      case "replay":
        await storeReplayItem(tx, row, it.replay, tally, maxReplaySize);
        break;
      case "spans":
        await insertSpans(tx, row.projectId, row.receivedAt, it.spans);
        tally.add(row.projectId, row.keyId, row.receivedAt, it.category, "accepted", "", it.category === "span" ? it.spans.length : 1);
        break;
      case "logs":
        await insertLogs(tx, row.projectId, row.receivedAt, it.logs);
        tally.add(row.projectId, row.keyId, row.receivedAt, "log_item", "accepted", "", it.logs.length);
        break;
      case "metrics":
        await insertMetrics(tx, row.projectId, row.receivedAt, it.metrics);
        tally.add(row.projectId, row.keyId, row.receivedAt, "trace_metric", "accepted", "", it.metrics.length);
        break;
    }
  }
}

/**
 * A row that is one check-in for a monitor not created yet, without the monitor_config to create
 * it, waits a little before it is filtered. Several digest workers (threads, or processes on
 * PostgreSQL) take queue rows in parallel, so a job's `ok` can reach its transaction while the
 * `in_progress` that carries the config, sent before it, is still uncommitted in another worker's
 * transaction: filtering it then would drop a check-in the SDK was told was accepted. Nothing is
 * written for it, so the row goes back to the queue as it was; after MONITOR_WAIT_ATTEMPTS claims
 * it is counted filtered(monitor_not_found) as before. The caller asks only for rows without
 * events, so putting one back repeats nothing.
 */
export async function checkInWaits(tx: Tx, row: QueueItem, extras: ItemExtras | undefined): Promise<boolean> {
  if (!extras) return false;
  const [only] = extras.items;
  if (extras.items.length !== 1 || extras.outcomes.length > 0 || only?.kind !== "check_in") return false;
  if (row.attempts >= MONITOR_WAIT_ATTEMPTS || only.checkIn.config) return false;
  return (await findMonitor(tx, row.projectId, only.checkIn.monitorSlug)) === undefined;
}

/** Writes a batch's outcome counts (inside its transaction). */
export async function writeOutcomes(tx: Tx, ...tallies: OutcomeTally[]): Promise<void> {
  const counts = tallies.flatMap((t) => t.peek());
  if (counts.length > 0) await addOutcomes(tx, counts);
}

/** After the commit: the same counts on /metrics. */
export function publishOutcomes(...tallies: OutcomeTally[]): void {
  for (const t of tallies) countOutcomeMetrics(t.peek());
}

// ---------------------------------------------------------------------------------------------
// Item parsing

const MAX_NAME = 128;
const MAX_EMAIL = 256;
const MAX_COMMENTS = 8192;
const MAX_URL = 2048;
const MAX_FILENAME = 256;

function attachmentOf(entry: EnvelopeItem, eventId: string | undefined): AttachmentItem {
  // Ingest gives every event-bound envelope an id; a row without one predates that or is forged.
  if (!eventId) throw invalid("invalid_event_id", "The attachment's envelope has no event_id.");
  const h = entry.headers;
  return {
    kind: "attachment",
    eventId,
    name: str(h.filename, MAX_FILENAME) || "attachment",
    contentType: str(h.content_type, 128) || "application/octet-stream",
    attachmentType: str(h.attachment_type, 64) || "event.attachment",
    data: entry.payload,
  };
}

function userReportOf(p: Record<string, unknown>, entry: EnvelopeItem, headerEventId: string | undefined): FeedbackItem {
  const eventId = normalizeEventId(p.event_id) ?? headerEventId;
  if (!eventId) throw invalid("invalid_event_id", "The user report names no event.");
  return {
    kind: "feedback",
    category: "user_report_v2",
    feedbackId: eventId,
    eventId,
    name: str(p.name, MAX_NAME),
    email: str(p.email, MAX_EMAIL),
    comments: str(p.comments, MAX_COMMENTS),
    url: null,
    source: entry.headers.errata_source === "crash_report_dialog" ? "crash_report_dialog" : "user_report",
  };
}

function feedbackOf(p: Record<string, unknown>, headerEventId: string | undefined): FeedbackItem {
  const contexts = isObject(p.contexts) ? p.contexts : {};
  const fb = isObject(contexts.feedback) ? contexts.feedback : {};
  const feedbackId = headerEventId ?? normalizeEventId(p.event_id);
  if (!feedbackId) throw invalid("invalid_event_id", "The feedback has no event_id.");
  const user = isObject(p.user) ? p.user : {};
  return {
    kind: "feedback",
    category: "feedback",
    feedbackId,
    eventId: normalizeEventId(fb.associated_event_id) ?? null,
    name: str(fb.name, MAX_NAME) || str(user.name, MAX_NAME) || str(user.username, MAX_NAME),
    email: str(fb.contact_email, MAX_EMAIL) || str(user.email, MAX_EMAIL),
    comments: str(fb.message, MAX_COMMENTS),
    url: str(fb.url, MAX_URL) || null,
    source: "feedback",
    replayId: normalizeEventId(fb.replay_id) ?? null,
  };
}

// ---------------------------------------------------------------------------------------------
// Replays

/** One envelope's replay rows; its outcome is one `replay`: accepted, a duplicate, or refused. */
async function storeReplayItem(tx: Tx, row: QueueItem, r: PreparedReplay, tally: OutcomeTally, maxReplaySize: number): Promise<void> {
  const segments: Array<NewSegment | null> = r.segments.length > 0 ? r.segments : [null];
  let result: StoreReplayResult = "duplicate";
  for (const [i, segment] of segments.entries()) {
    const one = await storeReplay(tx, {
      projectId: row.projectId,
      replayId: r.replayId,
      receivedAt: row.receivedAt,
      // The replay_event goes with the first segment; any further one adds only its recording.
      event: i === 0 ? r.event : null,
      segment,
      maxReplaySize,
    });
    if (one !== "stored" && one !== "duplicate") {
      result = one;
      break;
    }
    if (one === "stored") result = "stored";
  }
  const at = row.receivedAt;
  if (result === "stored") tally.add(row.projectId, row.keyId, at, "replay", "accepted");
  else if (result === "duplicate") tally.add(row.projectId, row.keyId, at, "replay", "filtered", REASONS.duplicate);
  else tally.add(row.projectId, row.keyId, at, "replay", "invalid", REPLAY_REFUSALS[result]);
}

const REPLAY_REFUSALS: Record<"foreign" | "too_large" | "unknown", ErrorCode> = {
  foreign: "replay_foreign",
  too_large: "replay_too_large",
  unknown: "replay_unknown",
};

// ---------------------------------------------------------------------------------------------
// Sessions

/** The last time this thread pruned old session states (module state: one worker per thread). */
let lastPrune = 0;

/** Counts one session update; answers the bucket it changed, undefined when nothing changed (a repeated or healthier update). */
async function storeSessionUpdate(tx: Tx, projectId: number, u: SessionUpdate, now: number): Promise<SessionBucketKey | undefined> {
  const bucket: SessionBucketKey = { projectId, release: u.release, environment: u.environment, hour: hourOf(u.started) };
  if (u.sid === null) {
    // A one-shot update (no id): counted on its own, nothing to remember.
    const change = applySessionUpdate(undefined, u);
    if (!change) return undefined;
    await addCounts(tx, bucket, change.delta, u.did);
    return bucket;
  }
  const prev = (await getSessionStates(tx, projectId, [u.sid])).get(u.sid);
  const change = applySessionUpdate(prev?.status, u);
  if (!change) return undefined;
  // A session stays in the bucket of its first update, even when a later one reports another start.
  const home = prev ?? bucket;
  await putSessionState(tx, u.sid, { ...home, projectId, status: change.next }, now);
  await addCounts(tx, home, change.delta, u.did, prev === undefined);
  if (now - lastPrune > HOUR_MS) {
    lastPrune = now;
    await pruneSessionStates(tx, now - SESSION_MAX_AGE_MS - 24 * HOUR_MS);
  }
  return home;
}

async function storeSessionAggregates(tx: Tx, projectId: number, a: SessionAggregates): Promise<void> {
  for (const b of a.buckets) {
    await addCounts(tx, { projectId, release: a.release, environment: a.environment, hour: hourOf(b.started) }, b.delta, b.did);
  }
}

/**
 * `firstUpdate`: the session's first counted update (its user is counted then). A crash marks the
 * user crashed whichever update reports it (crash-free users).
 */
async function addCounts(tx: Tx, bucket: SessionBucketKey, delta: SessionDelta, did: string | null, firstUpdate = true): Promise<void> {
  const didHash = did ? hashDid(did) : null;
  const newUser = didHash && firstUpdate ? await addSessionUser(tx, bucket, didHash) : false;
  if (didHash && delta.crashed > 0) await markSessionUserCrashed(tx, bucket, didHash);
  await addSessionCounts(tx, [{ ...bucket, delta, users: newUser ? 1 : 0 }]);
}

function hashDid(did: string): string {
  // Only the hash is stored: `did` may be an email or a user id.
  return createHash("sha256").update(did).digest("hex").slice(0, 32);
}

function hourOf(ms: number): number {
  return hourStart(ms);
}

// ---------------------------------------------------------------------------------------------

function reasonOf(err: unknown): string {
  return isAppError(err) ? err.code : "internal_error";
}

function invalid(code: ErrorCode, message: string): AppError {
  return new AppError(code, message);
}

function str(v: unknown, max: number): string {
  if (typeof v === "string") return v.trim().slice(0, max);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return "";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
