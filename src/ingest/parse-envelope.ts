/**
 * Byte-level Sentry envelope parser (reference §3.1). Pure: works on bytes, no I/O, so both the
 * ingest hot path and the digest worker use it.
 *
 *   Envelope    = EnvHeaders { LF Item } [ LF ]
 *   Item        = ItemHeaders LF Payload
 *   Payload     = exactly `length` bytes when the item header has one, else up to the next LF/EOF
 */
import { AppError } from "../core/errors";

export interface EnvelopeItem {
  headers: Record<string, unknown> & { type: string };
  payload: Uint8Array;
  /** byte offset of the item header line in the envelope */
  start: number;
  /** byte offset just past the payload (its trailing newline excluded) */
  end: number;
}

export interface Envelope {
  headers: Record<string, unknown>;
  items: EnvelopeItem[];
}

export interface EnvelopeLimits {
  maxHeaderLine: number;
  maxEventSize: number;
  maxAttachmentSize: number;
}

const LF = 0x0a;
const decoder = new TextDecoder("utf-8", { fatal: false });

/** Item types whose payload is an event-sized JSON document. */
export const EVENT_LIKE_TYPES = new Set(["event", "transaction", "feedback", "security", "raw_security", "user_report"]);

export function parseEnvelope(buf: Uint8Array, limits: EnvelopeLimits): Envelope {
  let pos = 0;
  const len = buf.length;

  const readLine = (): Uint8Array => {
    let end = buf.indexOf(LF, pos);
    if (end === -1) end = len;
    const line = buf.subarray(pos, end);
    pos = Math.min(end + 1, len);
    return line;
  };

  const headers = parseHeaderLine(readLine(), limits, "envelope header");
  const items: EnvelopeItem[] = [];
  while (pos < len) {
    const lineStart = pos;
    const line = readLine();
    // Tolerate blank lines between items (and a trailing newline): some SDKs write them.
    if (isBlank(line)) continue;
    const h = parseHeaderLine(line, limits, `item header at byte ${lineStart}`);
    if (typeof h.type !== "string" || h.type.length === 0) {
      throw new AppError("invalid_envelope", `Item header at byte ${lineStart} has no "type".`);
    }
    let payload: Uint8Array;
    if (h.length !== undefined && h.length !== null) {
      const length = h.length;
      if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
        throw new AppError("invalid_envelope", `Item "${h.type}" has an invalid length.`);
      }
      checkItemSize(h.type, length, limits);
      if (pos + length > len) {
        throw new AppError("invalid_envelope", `Item "${h.type}" declares ${length} bytes but only ${len - pos} remain.`);
      }
      payload = buf.subarray(pos, pos + length);
      pos += length;
      if (pos < len) {
        if (buf[pos] !== LF) throw new AppError("invalid_envelope", `Item "${h.type}" payload is not followed by a newline.`);
        pos += 1;
      }
    } else {
      payload = readLine();
      checkItemSize(h.type, payload.length, limits);
    }
    items.push({
      headers: h as EnvelopeItem["headers"],
      payload,
      start: lineStart,
      end: payload.byteOffset - buf.byteOffset + payload.length,
    });
  }
  return { headers, items };
}

function checkItemSize(type: string, size: number, limits: EnvelopeLimits): void {
  if (EVENT_LIKE_TYPES.has(type) && size > limits.maxEventSize) {
    throw new AppError("payload_too_large", `The ${type} item is ${size} bytes; the limit is ${limits.maxEventSize}.`);
  }
  if (type === "attachment" && size > limits.maxAttachmentSize) {
    throw new AppError("payload_too_large", `The attachment is ${size} bytes; the limit is ${limits.maxAttachmentSize}.`);
  }
}

function isBlank(line: Uint8Array): boolean {
  for (const b of line) if (b !== 0x20 && b !== 0x0d && b !== 0x09) return false;
  return true;
}

function parseHeaderLine(line: Uint8Array, limits: EnvelopeLimits, what: string): Record<string, unknown> {
  if (line.length > limits.maxHeaderLine) {
    throw new AppError("payload_too_large", `The ${what} is ${line.length} bytes; the limit is ${limits.maxHeaderLine}.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(line));
  } catch {
    throw new AppError("invalid_envelope", `The ${what} is not valid JSON.`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AppError("invalid_envelope", `The ${what} is not a JSON object.`);
  }
  return value as Record<string, unknown>;
}

/** Parses a JSON payload that must be an object (event items). */
export function parseJsonObject(payload: Uint8Array, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(payload));
  } catch {
    throw new AppError("invalid_json", `The ${what} payload is not valid JSON.`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AppError("invalid_json", `The ${what} payload is not a JSON object.`);
  }
  return value as Record<string, unknown>;
}

/** 32 lowercase hex chars from a UUID with or without dashes, or undefined when it is not one. */
export function normalizeEventId(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const hex = value.replace(/-/g, "").toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) ? hex : undefined;
}
