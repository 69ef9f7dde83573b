/**
 * Outcomes (SPEC §3 "Outcome counters", ARCHITECTURE "every item gets exactly one outcome"): what
 * became of each envelope item — accepted (stored), filtered (duplicate, unsupported type…),
 * rate_limited, invalid — plus `client_discard` for what SDKs report they dropped themselves
 * (`client_report` items). Counted per project, key, hour, data category, outcome and reason.
 * Pure: time comes in as arguments.
 */
import { ERROR_CATALOGUE, type ErrorCode, type Outcome } from "./errors";

export type OutcomeName = Outcome | "client_discard";

export const OUTCOME_NAMES: readonly OutcomeName[] = ["accepted", "filtered", "rate_limited", "invalid", "client_discard"];

/** Reason codes Errata itself records (SDK discard reasons are kept as the SDK sent them). */
export const REASONS = {
  duplicate: "duplicate",
  unsupportedItem: "unsupported_item",
  keyQuota: "key_quota",
  projectQuota: "project_quota",
  queueFull: "queue_full",
  diskFull: "disk_full",
  tooOld: "too_old",
  /** the project turned replay storage off */
  replaysDisabled: "replays_disabled",
} as const;

const HOUR_MS = 3_600_000;

/** Start of the hour (epoch ms) that `ms` falls in: the counters' time bucket. */
export function hourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/**
 * Item types Errata stores or counts; everything else (profile, replay_video, statsd, unknown…) is
 * answered 200 and counted filtered(unsupported_item). Transactions, spans, logs and trace metrics
 * (`Sentry.metrics`) are kept, bounded, for the trace pages (src/core/traces.ts, core/trace-metrics.ts);
 * session replays (replay_event + replay_recording) since issue 40.
 */
export const SUPPORTED_ITEM_TYPES: ReadonlySet<string> = new Set([
  "event",
  "transaction",
  "span",
  "log",
  "trace_metric",
  "attachment",
  "user_report",
  "feedback",
  "session",
  "sessions",
  "client_report",
  "raw_security",
  "security",
  "check_in",
  "replay_event",
  "replay_recording",
]);

export function isSupportedItem(type: string): boolean {
  return SUPPORTED_ITEM_TYPES.has(type);
}

/** Envelope item type → Sentry data category (reference §3.4; what rate limits and client reports name). */
export function itemCategory(type: string): string {
  switch (type) {
    case "event":
      return "error";
    case "transaction":
      return "transaction";
    case "attachment":
      return "attachment";
    case "session":
    case "sessions":
      return "session";
    case "user_report":
      return "user_report_v2";
    case "feedback":
      return "feedback";
    case "client_report":
      return "internal";
    case "raw_security":
    case "security":
      return "security";
    case "profile":
    case "profile_chunk":
      return "profile";
    case "replay_event":
    case "replay_recording":
    case "replay_video":
      return "replay";
    case "check_in":
      return "monitor";
    case "span":
      return "span";
    case "log":
      return "log_item";
    case "trace_metric":
      return "trace_metric";
    case "statsd":
    case "metric_buckets":
      return "metric_bucket";
    default:
      return "default";
  }
}

/** The outcome a rejected request's items get, from the catalogue (undefined: not an ingest error). */
export function outcomeOfError(code: ErrorCode): Outcome | undefined {
  const entry = ERROR_CATALOGUE[code] as { outcome?: Outcome };
  return entry.outcome;
}

export interface OutcomeCount {
  projectId: number;
  keyId: number;
  /** start of the hour, epoch ms */
  hour: number;
  category: string;
  outcome: OutcomeName;
  reason: string;
  quantity: number;
}

/**
 * Counters accumulated in memory and written in batches (ingest flushes with its group commit,
 * the digest worker inside its batch transaction), so no request pays a write of its own.
 */
export class OutcomeTally {
  private counts = new Map<string, OutcomeCount>();

  get size(): number {
    return this.counts.size;
  }

  add(projectId: number, keyId: number, at: number, category: string, outcome: OutcomeName, reason = "", quantity = 1): void {
    if (!(quantity > 0)) return;
    const hour = hourStart(at);
    const k = `${projectId}|${keyId}|${hour}|${category}|${outcome}|${reason}`;
    const c = this.counts.get(k);
    if (c) c.quantity += quantity;
    else this.counts.set(k, { projectId, keyId, hour, category, outcome, reason, quantity });
  }

  addAll(counts: readonly OutcomeCount[]): void {
    for (const c of counts) this.counts.set(this.keyOf(c), this.merge(c));
  }

  /** The counts so far, leaving the tally empty. */
  drain(): OutcomeCount[] {
    const out = [...this.counts.values()];
    this.counts = new Map();
    return out;
  }

  peek(): OutcomeCount[] {
    return [...this.counts.values()].map((c) => ({ ...c }));
  }

  private keyOf(c: OutcomeCount): string {
    return `${c.projectId}|${c.keyId}|${c.hour}|${c.category}|${c.outcome}|${c.reason}`;
  }

  private merge(c: OutcomeCount): OutcomeCount {
    const prev = this.counts.get(this.keyOf(c));
    return prev ? { ...prev, quantity: prev.quantity + c.quantity } : { ...c };
  }
}

// ---------------------------------------------------------------------------------------------
// client_report items (reference §5.5)

export interface ClientDiscard {
  category: string;
  reason: string;
  quantity: number;
}

export interface ClientReport {
  /** epoch ms the SDK says the discards happened (receive time when absent or implausible) */
  at: number;
  discards: ClientDiscard[];
}

/** The lists a client report may carry: SDKs send `discarded_events`, Relays the other three. */
const DISCARD_LISTS = ["discarded_events", "rate_limited_events", "filtered_events", "filtered_sampling_events"] as const;
const CODE_RE = /^[A-Za-z0-9_.:-]{1,64}$/;
const MAX_ENTRIES = 200;
const MAX_QUANTITY = 1_000_000_000;
const MAX_AGE_MS = 30 * 24 * HOUR_MS;
const MAX_FUTURE_MS = 60_000;

/**
 * Parses a client report leniently: entries with an unusable category, reason or quantity are
 * skipped, never fatal. Returns undefined when the payload is not an object at all.
 */
export function parseClientReport(json: unknown, receivedAt: number): ClientReport | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const r = json as Record<string, unknown>;
  const discards: ClientDiscard[] = [];
  for (const list of DISCARD_LISTS) {
    const entries = r[list];
    if (!Array.isArray(entries)) continue;
    for (const e of entries) {
      if (discards.length >= MAX_ENTRIES) break;
      const d = parseDiscard(e);
      if (d) discards.push(d);
    }
  }
  return { at: reportTime(r.timestamp, receivedAt), discards };
}

function parseDiscard(e: unknown): ClientDiscard | undefined {
  if (typeof e !== "object" || e === null) return undefined;
  const { category, reason, quantity } = e as Record<string, unknown>;
  if (typeof category !== "string" || !CODE_RE.test(category)) return undefined;
  if (typeof reason !== "string" || !CODE_RE.test(reason)) return undefined;
  if (typeof quantity !== "number" || !Number.isFinite(quantity) || quantity <= 0) return undefined;
  return { category, reason, quantity: Math.min(MAX_QUANTITY, Math.round(quantity)) };
}

function reportTime(value: unknown, receivedAt: number): number {
  let ms: number | undefined;
  if (typeof value === "number" && Number.isFinite(value)) ms = value * 1000;
  else if (typeof value === "string") {
    const t = Date.parse(value);
    if (Number.isFinite(t)) ms = t;
  }
  if (ms === undefined || ms > receivedAt + MAX_FUTURE_MS || ms < receivedAt - MAX_AGE_MS) return receivedAt;
  return ms;
}
