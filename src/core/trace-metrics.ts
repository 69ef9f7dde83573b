/**
 * What `Sentry.metrics` (SDK 11) sends: `trace_metric` envelope items,
 * `application/vnd.sentry.items.trace-metric+json`, a `{version: 2, items: [metric…]}` container
 * whose items are `{timestamp, trace_id, span_id?, name, type, unit?, value, attributes}` with
 * `type` one of counter, gauge, distribution and attributes in the v2 `{key: {value, type}}` form.
 * Kept like spans and logs: bounded, keyed by name and attributes, never aggregated at ingest.
 * Lenient like the rest of ingest: a sample without a name, a known type or a finite value is
 * dropped (counted invalid). Pure: no I/O, no clock.
 */
import { type Parsed, TRACE_LIMITS } from "./traces";

export const METRIC_TYPES = ["counter", "gauge", "distribution"] as const;
export type MetricType = (typeof METRIC_TYPES)[number];

export interface MetricRecord {
  traceId: string | null;
  spanId: string | null;
  name: string;
  type: MetricType;
  unit: string | null;
  value: number;
  /** epoch ms */
  timestamp: number;
  /** JSON object of the sample's attributes, size-capped */
  attributes: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function hexId(v: unknown, length: number): string | null {
  if (typeof v !== "string") return null;
  const s = v.replace(/-/g, "").toLowerCase();
  return s.length === length && /^[0-9a-f]+$/.test(s) ? s : null;
}

function seconds(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v) && v > 0) {
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

function attributesJson(v: unknown): string {
  const flat: Obj = {};
  if (isObj(v)) for (const [k, a] of Object.entries(v)) flat[k] = isObj(a) && "value" in a ? a.value : a;
  const json = JSON.stringify(flat);
  if (json.length <= TRACE_LIMITS.attributes) return json;
  const kept: Obj = {};
  let size = 2;
  for (const [k, a] of Object.entries(flat)) {
    const piece = JSON.stringify({ [k]: a }).length;
    if (size + piece > TRACE_LIMITS.attributes - 64) continue;
    kept[k] = a;
    size += piece;
  }
  kept["errata.dropped_attributes"] = Object.keys(flat).length - Object.keys(kept).length;
  return JSON.stringify(kept);
}

function metricOf(raw: unknown, now: number): MetricRecord | null {
  if (!isObj(raw)) return null;
  const name = typeof raw.name === "string" ? raw.name.trim().slice(0, 256) : "";
  const type = typeof raw.type === "string" ? raw.type.toLowerCase() : "";
  const value = typeof raw.value === "number" ? raw.value : typeof raw.value === "string" ? Number(raw.value) : Number.NaN;
  if (name === "" || !(METRIC_TYPES as readonly string[]).includes(type) || !Number.isFinite(value)) return null;
  const unit = typeof raw.unit === "string" && raw.unit !== "" && raw.unit !== "none" ? raw.unit.slice(0, 64) : null;
  return {
    traceId: hexId(raw.trace_id, 32),
    spanId: hexId(raw.span_id, 16),
    name,
    type: type as MetricType,
    unit,
    value,
    timestamp: seconds(raw.timestamp) ?? now,
    attributes: attributesJson(raw.attributes),
  };
}

/** A `trace_metric` item (v2 container); `now` stands in for a missing timestamp. */
export function metricsOfContainer(payload: unknown, now: number): Parsed<MetricRecord> {
  const items = isObj(payload) && Array.isArray(payload.items) ? payload.items : Array.isArray(payload) ? payload : [];
  const capped = items.slice(0, TRACE_LIMITS.perItem);
  const records = capped.map((m) => metricOf(m, now)).filter((m): m is MetricRecord => m !== null);
  return { records, dropped: items.length - records.length };
}
