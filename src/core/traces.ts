/**
 * Spans and logs, kept only to explain errors: an issue page shows the spans and logs of the
 * trace its event belongs to. Errata is not a performance product; these records are bounded
 * (retention and a per-project cap) and never aggregated.
 *
 * Three wire shapes arrive (reference: the envelope item types):
 *  - `span` items, `application/vnd.sentry.items.span.v2+json`: `{version: 2, items: [span…]}`,
 *    what SDK 11 sends when it streams spans;
 *  - `transaction` items: an event whose `contexts.trace` is the root span and `spans[]` the rest;
 *  - `log` items, `application/vnd.sentry.items.log+json`: `{version: 2, items: [log…]}`.
 * Lenient like the rest of ingest: records without a usable trace id are skipped, odd fields coerced.
 * Pure: no I/O, no clock.
 */

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  /** the transaction / segment the span belongs to, when the SDK says */
  segmentName: string | null;
  name: string;
  op: string | null;
  status: string | null;
  /** epoch ms */
  start: number;
  /** epoch ms; never before `start` */
  end: number;
  /** JSON object of attributes / data, size-capped */
  attributes: string;
  /**
   * Starts a segment (a transaction, or a service's entry span): the trace list's rows. A
   * transaction's root, a v2 span the SDK marks `is_segment`, or a span without a parent.
   */
  segment?: boolean;
}

export interface LogRecord {
  traceId: string | null;
  spanId: string | null;
  /** epoch ms */
  timestamp: number;
  level: string;
  body: string;
  attributes: string;
}

export const TRACE_LIMITS = {
  /** records taken from one item; the rest are counted as filtered */
  perItem: 1000,
  name: 1024,
  body: 8192,
  /** serialised attributes per record */
  attributes: 16_384,
} as const;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function hexId(v: unknown, length: number): string | null {
  if (typeof v !== "string") return null;
  const s = v.replace(/-/g, "").toLowerCase();
  return s.length === length && /^[0-9a-f]+$/.test(s) ? s : null;
}

function text(v: unknown, max: number): string | null {
  if (typeof v !== "string" || v === "") return null;
  return v.length > max ? `${v.slice(0, max - 1)}…` : v;
}

/** Seconds (float) or an ISO string → epoch ms; anything else → undefined. */
function toMs(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v > 0) {
    // SDKs send seconds; a value in ms (or finer) would land millennia ahead: scale it back.
    let secs = v;
    while (secs > 1e11) secs /= 1000;
    return Math.round(secs * 1000);
  }
  if (typeof v === "string") {
    const ms = Date.parse(v);
    return Number.isFinite(ms) ? ms : undefined;
  }
  return undefined;
}

/** `{key: {value, type}}` (span/log v2 attributes) → `{key: value}`; plain objects stay as they are. */
function flattenAttributes(v: unknown): Obj {
  if (!isObj(v)) return {};
  const out: Obj = {};
  for (const [k, a] of Object.entries(v)) out[k] = isObj(a) && "value" in a ? a.value : a;
  return out;
}

function attributesJson(attrs: Obj): string {
  let json: string;
  try {
    json = JSON.stringify(attrs);
  } catch {
    return "{}";
  }
  if (json.length <= TRACE_LIMITS.attributes) return json;
  // Too large: keep the keys that fit, in order, and say how many were dropped.
  const kept: Obj = {};
  let size = 2;
  let dropped = 0;
  for (const [k, v] of Object.entries(attrs)) {
    const piece = JSON.stringify({ [k]: v }).length;
    if (size + piece > TRACE_LIMITS.attributes - 64) {
      dropped++;
      continue;
    }
    kept[k] = v;
    size += piece;
  }
  kept["errata.dropped_attributes"] = dropped;
  return JSON.stringify(kept);
}

function str(v: unknown): string | null {
  return typeof v === "string" && v !== "" ? v : null;
}

/** One span of a v2 container (or a transaction's `spans[]`, which uses the same names but `data`/`op`). */
function spanOf(raw: unknown, fallback: { traceId?: string | null; segmentName?: string | null }): SpanRecord | null {
  if (!isObj(raw)) return null;
  const traceId = hexId(raw.trace_id, 32) ?? fallback.traceId ?? null;
  const spanId = hexId(raw.span_id, 16);
  const start = toMs(raw.start_timestamp);
  if (!traceId || !spanId || start === undefined) return null;
  const end = Math.max(start, toMs(raw.end_timestamp ?? raw.timestamp) ?? start);
  const attrs = { ...flattenAttributes(raw.attributes), ...(isObj(raw.data) ? raw.data : {}) };
  const op = str(raw.op) ?? str(attrs["sentry.op"]);
  return {
    traceId,
    spanId,
    parentSpanId: hexId(raw.parent_span_id, 16),
    segmentName: text(attrs["sentry.segment.name"], TRACE_LIMITS.name) ?? fallback.segmentName ?? null,
    name: text(raw.name ?? raw.description, TRACE_LIMITS.name) ?? op ?? "(unnamed span)",
    op: op ? op.slice(0, 128) : null,
    status: str(raw.status)?.slice(0, 64) ?? null,
    start,
    end,
    attributes: attributesJson(attrs),
    segment: raw.is_segment === true || hexId(raw.parent_span_id, 16) === null,
  };
}

/** Records of a `{version, items: […]}` container, capped; `dropped` counts what was left out. */
function containerItems(payload: unknown): { items: unknown[]; dropped: number } {
  const items = isObj(payload) && Array.isArray(payload.items) ? payload.items : Array.isArray(payload) ? payload : [];
  return { items: items.slice(0, TRACE_LIMITS.perItem), dropped: Math.max(0, items.length - TRACE_LIMITS.perItem) };
}

export interface Parsed<T> {
  records: T[];
  /** records that could not be used (no trace id, no timestamp) or were over the per-item cap */
  dropped: number;
}

/** A `span` item (v2 container). */
export function spansOfContainer(payload: unknown): Parsed<SpanRecord> {
  const { items, dropped } = containerItems(payload);
  const records = items.map((s) => spanOf(s, {})).filter((s): s is SpanRecord => s !== null);
  return { records, dropped: dropped + items.length - records.length };
}

/** A `transaction` event: its root span (`contexts.trace`) plus `spans[]`. */
export function spansOfTransaction(event: unknown): Parsed<SpanRecord> {
  if (!isObj(event)) return { records: [], dropped: 0 };
  const trace = isObj(event.contexts) && isObj(event.contexts.trace) ? event.contexts.trace : {};
  const traceId = hexId(trace.trace_id, 32);
  const segmentName = text(event.transaction, TRACE_LIMITS.name);
  const root = spanOf(
    { ...trace, name: event.transaction, start_timestamp: event.start_timestamp, timestamp: event.timestamp },
    { traceId, segmentName },
  );
  const children = Array.isArray(event.spans) ? event.spans : [];
  const capped = children.slice(0, TRACE_LIMITS.perItem - 1);
  // The transaction's root starts its segment even when it continues another service's trace.
  const top: SpanRecord | null = root ? { ...root, segment: true } : null;
  const rest = capped.map((s): SpanRecord | null => {
    const span = spanOf(s, { traceId, segmentName });
    return span ? { ...span, segment: false } : null;
  });
  const records = [top, ...rest].filter((s): s is SpanRecord => s !== null);
  return { records, dropped: 1 + children.length - records.length };
}

const LEVELS = new Set(["trace", "debug", "info", "warn", "error", "fatal"]);

function logOf(raw: unknown): LogRecord | null {
  if (!isObj(raw)) return null;
  const timestamp = toMs(raw.timestamp);
  const body = typeof raw.body === "string" ? raw.body : raw.body === undefined ? null : JSON.stringify(raw.body);
  if (timestamp === undefined || body === null) return null;
  const attrs = flattenAttributes(raw.attributes);
  const level = typeof raw.level === "string" && LEVELS.has(raw.level.toLowerCase()) ? raw.level.toLowerCase() : "info";
  return {
    traceId: hexId(raw.trace_id, 32),
    spanId: hexId(raw.span_id ?? attrs["sentry.trace.parent_span_id"], 16),
    timestamp,
    level,
    body: text(body, TRACE_LIMITS.body) ?? "",
    attributes: attributesJson(attrs),
  };
}

/** A `log` item (v2 container). */
export function logsOfContainer(payload: unknown): Parsed<LogRecord> {
  const { items, dropped } = containerItems(payload);
  const records = items.map(logOf).filter((l): l is LogRecord => l !== null);
  return { records, dropped: dropped + items.length - records.length };
}

export interface WaterfallRow {
  span: SpanRecord;
  depth: number;
  /** offset from the trace's start and width, as fractions of the trace's duration (0..1) */
  left: number;
  width: number;
}

/**
 * Spans in tree order (parents before children, siblings by start) with their depth and position
 * on a shared time axis; spans whose parent is missing are treated as roots.
 */
export function waterfall(spans: SpanRecord[]): { rows: WaterfallRow[]; start: number; end: number } {
  if (spans.length === 0) return { rows: [], start: 0, end: 0 };
  const start = Math.min(...spans.map((s) => s.start));
  const end = Math.max(...spans.map((s) => s.end));
  const total = Math.max(1, end - start);
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string | null, SpanRecord[]>();
  for (const s of spans) {
    const parent = s.parentSpanId && ids.has(s.parentSpanId) && s.parentSpanId !== s.spanId ? s.parentSpanId : null;
    const list = children.get(parent) ?? [];
    list.push(s);
    children.set(parent, list);
  }
  const rows: WaterfallRow[] = [];
  const seen = new Set<string>();
  const visit = (parent: string | null, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => a.start - b.start)) {
      if (seen.has(s.spanId)) continue; // duplicated ids or cycles: show each span once
      seen.add(s.spanId);
      rows.push({ span: s, depth, left: (s.start - start) / total, width: Math.max(0, (s.end - s.start) / total) });
      visit(s.spanId, depth + 1);
    }
  };
  visit(null, 0);
  // Spans caught in a parent cycle were reached by no root: show them as roots too.
  for (const s of spans) {
    if (seen.has(s.spanId)) continue;
    seen.add(s.spanId);
    rows.push({ span: s, depth: 0, left: (s.start - start) / total, width: Math.max(0, (s.end - s.start) / total) });
    visit(s.spanId, 1);
  }
  return { rows, start, end };
}

/**
 * The segment (transaction) each span belongs to: its nearest ancestor that is a segment root — a
 * span without a kept parent, or whose parent is another project's (a service's entry span in a
 * distributed trace). Iterative: a trace of thousands of nested spans recurses nowhere.
 */
export function segmentRoots(
  spans: ReadonlyArray<{ spanId: string; parentSpanId: string | null; projectId: number }>,
): Map<string, string> {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const isRoot = (s: { parentSpanId: string | null; projectId: number }) => {
    const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
    return !parent || parent.projectId !== s.projectId;
  };
  const rootOf = new Map<string, string>();
  for (const s of spans) {
    const path: string[] = [];
    let cur: (typeof spans)[number] | undefined = s;
    let root: string | undefined;
    while (cur) {
      const known = rootOf.get(cur.spanId);
      if (known) {
        root = known;
        break;
      }
      path.push(cur.spanId);
      if (isRoot(cur) || path.length > spans.length) {
        root = cur.spanId;
        break;
      }
      cur = cur.parentSpanId ? byId.get(cur.parentSpanId) : undefined;
    }
    for (const id of path) rootOf.set(id, root ?? s.spanId);
  }
  return rootOf;
}

export interface GroupableRow {
  depth: number;
  left: number;
  width: number;
}

export interface GroupRules<T> {
  /** the row's span id (`expanded` names runs by their first) */
  id(row: T): string;
  /** siblings alike (same op, name and service) */
  alike(a: T, b: T): boolean;
  /** never folded into a group (a span with an error on it) */
  keep(row: T): boolean;
}

export type GroupedRow<T> = { kind: "span"; row: T } | { kind: "group"; first: T; count: number; hidden: T[]; left: number; width: number };

/**
 * Sentry's sibling autogrouping: a run of at least `min` consecutive siblings alike (same op, name
 * and service — N+1 queries, retries, polling) becomes one row counting them, with the run's extent
 * on the time axis; their subtrees fold with them. `expanded` holds the first span id of runs to
 * show in full. Rows come in tree order (as `waterfall` gives them). O(n).
 */
export function autogroup<T extends GroupableRow>(
  rows: T[],
  rules: GroupRules<T>,
  expanded: ReadonlySet<string>,
  min = 5,
): Array<GroupedRow<T>> {
  const out: Array<GroupedRow<T>> = [];
  // The end (exclusive) of each row's subtree, in one pass with a stack of open rows.
  const ends = new Array<number>(rows.length).fill(rows.length);
  const open: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const d = (rows[k] as T).depth;
    while (open.length > 0 && (rows[open.at(-1) as number] as T).depth >= d) ends[open.pop() as number] = k;
    open.push(k);
  }
  const subtreeEnd = (k: number): number => ends[k] as number;
  /** members of an expanded run: shown one by one */
  const shown = new Set<string>();
  let i = 0;
  while (i < rows.length) {
    const row = rows[i] as T;
    const id = rules.id(row);
    const run = [i];
    let next = subtreeEnd(i);
    if (!rules.keep(row) && !shown.has(id)) {
      while (next < rows.length) {
        const sib = rows[next] as T;
        if (sib.depth !== row.depth || rules.keep(sib) || !rules.alike(row, sib)) break;
        run.push(next);
        next = subtreeEnd(next);
      }
    }
    if (expanded.has(id)) for (const k of run) shown.add(rules.id(rows[k] as T));
    if (run.length < min || expanded.has(id)) {
      out.push({ kind: "span", row });
      i++;
      continue;
    }
    const members = run.map((k) => rows[k] as T);
    const start = Math.min(...members.map((m) => m.left));
    const end = Math.max(...members.map((m) => m.left + m.width));
    out.push({ kind: "group", first: row, count: run.length, hidden: rows.slice(i, next), left: start, width: end - start });
    i = next;
  }
  return out;
}
