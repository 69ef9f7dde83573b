/**
 * What ingest checks in a body before queueing it — structure, sizes, event id — and the two
 * rewrites it makes: the queued envelope's header always carries the final `event_id` (the digest
 * worker trusts the header), and item types Errata does not store (transactions, replays,
 * profiles, …) are cut out so they never reach the queue. No other normalisation happens here.
 *
 * The event JSON itself is parsed only when its id is needed (no valid id in the header, and the
 * bytes could hold one): modern SDKs always put it in the header, and parsing 5–50 KB per request
 * is most of ingest's CPU. A broken event behind a valid header id is accepted; the worker stores
 * it empty with a note saying why (what ingest acknowledged is never dropped).
 */
import { randomUUID } from "node:crypto";
import { AppError } from "../core/errors";
import { isSupportedItem } from "../core/outcomes";
import { decodeStoreBody } from "./compat/store";
import { type EnvelopeItem, type EnvelopeLimits, normalizeEventId, parseEnvelope, parseJsonObject } from "./parse-envelope";

/** Item types that belong to an event: an envelope holding one needs an event id (reference §3.2). */
const EVENT_BOUND_TYPES = new Set([
  "event",
  "transaction",
  "attachment",
  "user_report",
  "feedback",
  "profile",
  "replay_event",
  "replay_recording",
  "security",
  "raw_security",
]);

/** Item types that count against rate limits (event-like: data categories error, default, security). */
const RATE_LIMITED_TYPES = new Set(["event", "raw_security", "security"]);

export interface AcceptedEnvelope {
  /**
   * The bytes to queue: the original, or rebuilt with the header line carrying `event_id` and
   * without unsupported items.
   */
  body: Buffer;
  eventId: string | undefined;
  /** The envelope header `dsn` as sent (tunnel self-authentication), unvalidated. */
  dsn: unknown;
  /** Headers only, no items: legal, nothing to store. */
  empty: boolean;
  /** Types of the items kept in `body`, in order. */
  kept: string[];
  /** The kept items as parsed (offsets into the received bytes). */
  items: EnvelopeItem[];
  /** Types of the items cut out (not stored by Errata: answered 200, counted filtered). */
  unsupported: string[];
  /** Types of the items cut out because the project turned them off (`drop`): counted filtered too. */
  dropped: string[];
  /** Holds an item subject to rate limits. */
  rateLimited: boolean;
}

export interface AcceptedStore {
  body: Buffer;
  eventId: string;
}

export function newEventId(): string {
  return randomUUID().replace(/-/g, "");
}

/**
 * Validates an envelope and settles its event id. Throws AppError (400/413). Items of the `drop`
 * types (a project's replays when it turned replay storage off) are cut out like unsupported ones.
 */
export function acceptEnvelope(buf: Buffer, limits: EnvelopeLimits, drop?: ReadonlySet<string>): AcceptedEnvelope {
  const env = parseEnvelope(buf, limits);
  let eventPayload: Uint8Array | undefined;
  let eventBound = false;
  let rateLimited = false;
  const keep: EnvelopeItem[] = [];
  const unsupported: string[] = [];
  const dropped: string[] = [];
  // A mobile replay (video segments) cannot be played here: its replay_event goes with the video.
  const video = env.items.some((i) => i.headers.type === "replay_video");
  for (const item of env.items) {
    const type = item.headers.type;
    if (!isSupportedItem(type) || (video && type === "replay_event")) {
      unsupported.push(type);
      continue;
    }
    if (drop?.has(type)) {
      dropped.push(type);
      continue;
    }
    keep.push(item);
    if (type === "event" && eventPayload === undefined) eventPayload = item.payload;
    if (EVENT_BOUND_TYPES.has(type)) eventBound = true;
    if (RATE_LIMITED_TYPES.has(type)) rateLimited = true;
  }

  const headerId = env.headers.event_id;
  let eventId = explicitId(headerId);
  // Only when the header has no id: see the file comment. Other items are the worker's business.
  if (eventPayload !== undefined && eventId === undefined && mayHoldEventId(eventPayload)) {
    eventId = explicitId(parseJsonObject(eventPayload, "event").event_id);
  }
  if (eventId === undefined && eventBound) eventId = newEventId();

  const newHeader = eventId !== undefined && headerId !== eventId;
  let body = buf;
  if (unsupported.length + dropped.length > 0) body = rebuild(buf, newHeader ? { ...env.headers, event_id: eventId } : undefined, keep);
  else if (newHeader) body = withHeaderEventId(buf, env.headers, eventId as string);
  return {
    body,
    eventId,
    dsn: env.headers.dsn,
    empty: env.items.length === 0,
    kept: keep.map((i) => i.headers.type),
    items: keep,
    unsupported,
    dropped,
    rateLimited,
  };
}

/** Validates a /store/ body (one event JSON, possibly base64/zlib) and settles its event id. */
export function acceptStore(buf: Buffer, maxEventSize: number): AcceptedStore {
  const json = decodeStoreBody(buf, maxEventSize);
  if (json.length > maxEventSize) {
    throw new AppError("payload_too_large", `The event is ${json.length} bytes; the limit is ${maxEventSize}.`);
  }
  const event = parseJsonObject(json, "event");
  const eventId = explicitId(event.event_id) ?? newEventId();
  // A valid id the SDK sent (any case, dashes) normalises to the same in the worker; only a
  // missing or null one must be written into the queued JSON. Appended as text, not re-serialised:
  // the body may be nested deeper than JSON.stringify can recurse, and the last duplicate key wins.
  const body = explicitId(event.event_id) === eventId ? json : withEventId(json, eventId);
  return { body, eventId };
}

/** The JSON object text `json` with `"event_id":"<id>"` as its last member. */
function withEventId(json: Buffer, eventId: string): Buffer {
  let end = json.length - 1;
  while (end > 0 && json[end] !== 0x7d) end -= 1; // the closing brace
  let before = end - 1;
  while (before > 0 && isJsonSpace(json[before] as number)) before -= 1;
  const empty = json[before] === 0x7b; // `{}`
  return Buffer.concat([json.subarray(0, end), Buffer.from(`${empty ? "" : ","}"event_id":"${eventId}"}`)]);
}

const EVENT_ID_KEY = Buffer.from('"event_id"');
const UNICODE_ESCAPE = Buffer.from("\\u");

/**
 * Whether parsing the event could find an `event_id` in it. Without the bytes `"event_id"` and
 * without any `\u` escape (the only way to spell those letters differently in JSON) it has none,
 * and a payload that is at least shaped like one object skips the parse: it is most of ingest's
 * CPU for an envelope without a header id. A body that then fails to parse is the worker's to
 * store empty with a note, as behind a header id; anything else is parsed and checked here.
 */
function mayHoldEventId(payload: Uint8Array): boolean {
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.length);
  if (!looksLikeObject(bytes)) return true;
  return bytes.indexOf(EVENT_ID_KEY) !== -1 || bytes.indexOf(UNICODE_ESCAPE) !== -1;
}

function looksLikeObject(bytes: Buffer): boolean {
  let start = 0;
  let end = bytes.length - 1;
  while (start <= end && isJsonSpace(bytes[start] as number)) start += 1;
  while (end >= start && isJsonSpace(bytes[end] as number)) end -= 1;
  return end > start && bytes[start] === 0x7b && bytes[end] === 0x7d;
}

function isJsonSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** Normalised id when present, undefined when absent; 400 when present but not a UUID. */
function explicitId(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const id = normalizeEventId(value);
  if (id === undefined) throw new AppError("invalid_event_id", "The event_id is not a valid UUID (32 hex characters, dashes allowed).");
  return id;
}

const LF = Buffer.from("\n");

/** The envelope with only the `keep` items (bytes as received), and optionally a new header line. */
function rebuild(buf: Buffer, headers: Record<string, unknown> | undefined, keep: EnvelopeItem[]): Buffer {
  const nl = buf.indexOf(0x0a);
  const parts: Buffer[] = [headers ? Buffer.from(JSON.stringify(headers)) : buf.subarray(0, nl === -1 ? buf.length : nl)];
  for (const item of keep) parts.push(LF, buf.subarray(item.start, item.end));
  return Buffer.concat(parts);
}

/** Replaces just the first line (the envelope header); items stay byte-identical. */
function withHeaderEventId(buf: Buffer, headers: Record<string, unknown>, eventId: string): Buffer {
  const nl = buf.indexOf(0x0a);
  const header = Buffer.from(JSON.stringify({ ...headers, event_id: eventId }));
  return nl === -1 ? header : Buffer.concat([header, buf.subarray(nl)]);
}
