/**
 * A `replay_event` item (the metadata the SDK sends with every segment) read into the fields
 * Errata keeps per replay, leniently: odd shapes become nulls, lists are bounded. Browser, OS and
 * device come from the SDK's contexts when it sent them, else from the User-Agent of its `request`
 * (as Sentry derives them). Pure.
 */
import { contextsFromUserAgent } from "../user-agent";

export interface ReplayUser {
  id: string | null;
  email: string | null;
  username: string | null;
  ip: string | null;
  name: string | null;
}

export interface ReplayEventFields {
  replayId: string;
  segmentId: number | null;
  replayType: string | null;
  /** epoch ms (replay_start_timestamp), when sent */
  startedAt: number | null;
  /** epoch ms (timestamp: this segment's end) */
  timestamp: number | null;
  urls: string[];
  errorIds: string[];
  traceIds: string[];
  release: string | null;
  environment: string | null;
  dist: string | null;
  platform: string | null;
  sdk: { name: string | null; version: string | null };
  user: ReplayUser;
  browser: { name: string | null; version: string | null };
  os: { name: string | null; version: string | null };
  device: { name: string | null; brand: string | null; family: string | null; model: string | null };
  tags: Array<[string, string]>;
}

const MAX_LIST = 1000;
const MAX_TEXT = 200;
const MAX_URL = 2048;
const HEX32 = /^[0-9a-f]{32}$/;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

function text(v: unknown, max = MAX_TEXT): string | null {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t === "" ? null : t.slice(0, max);
}

/** A UUID in any of its spellings → 32 lower-case hex, else null. */
export function normalizeId(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const id = v.replace(/-/g, "").toLowerCase();
  return HEX32.test(id) ? id : null;
}

function ids(v: unknown): string[] {
  if (!Array.isArray(v)) return [];
  const out = new Set<string>();
  for (const x of v) {
    const id = normalizeId(x);
    if (id) out.add(id);
    if (out.size >= MAX_LIST) break;
  }
  return [...out];
}

function texts(v: unknown, max: number): string[] {
  if (!Array.isArray(v)) return [];
  const out: string[] = [];
  for (const x of v) {
    const t = text(x, max);
    if (t) out.push(t);
    if (out.length >= MAX_LIST) break;
  }
  return out;
}

/** Seconds (float) or an ISO string → epoch ms. */
export function epochMs(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v) && v > 0) return Math.round(v < 1e11 ? v * 1000 : v);
  if (typeof v === "string") {
    const n = Number(v);
    if (v.trim() !== "" && Number.isFinite(n)) return epochMs(n);
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

function userAgent(raw: Obj): string | undefined {
  const headers = obj(obj(raw.request).headers);
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === "user-agent" && typeof v === "string") return v;
  return undefined;
}

function tagsOf(v: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const add = (k: unknown, val: unknown) => {
    const key = text(k);
    const value = text(val);
    if (key && value && out.length < 100) out.push([key, value]);
  };
  if (Array.isArray(v)) for (const p of v) Array.isArray(p) && add(p[0], p[1]);
  else for (const [k, val] of Object.entries(obj(v))) add(k, val);
  return out;
}

/** The replay id an envelope's replay items belong to: the payload's, else the envelope header's. */
export function readReplayEvent(raw: Obj, headerId: string | undefined): ReplayEventFields | null {
  const replayId = normalizeId(raw.replay_id) ?? normalizeId(raw.event_id) ?? headerId ?? null;
  if (!replayId) return null;
  const contexts = obj(raw.contexts);
  const ua = userAgent(raw);
  const derived = ua ? contextsFromUserAgent(ua) : {};
  const browser = Object.keys(obj(contexts.browser)).length > 0 ? obj(contexts.browser) : obj(derived.browser);
  const os = Object.keys(obj(contexts.os)).length > 0 ? obj(contexts.os) : obj(derived.os);
  const device = Object.keys(obj(contexts.device)).length > 0 ? obj(contexts.device) : obj(derived.device);
  const user = obj(raw.user);
  const sdk = obj(raw.sdk);
  const segment = raw.segment_id;
  return {
    replayId,
    segmentId: typeof segment === "number" && Number.isSafeInteger(segment) && segment >= 0 ? segment : null,
    replayType: text(raw.replay_type, 20),
    startedAt: epochMs(raw.replay_start_timestamp),
    timestamp: epochMs(raw.timestamp),
    urls: texts(raw.urls, MAX_URL),
    errorIds: ids(raw.error_ids),
    traceIds: ids(raw.trace_ids),
    release: text(raw.release),
    environment: text(raw.environment, 64),
    dist: text(raw.dist, 64),
    platform: text(raw.platform, 64),
    sdk: { name: text(sdk.name), version: text(sdk.version) },
    user: {
      id: text(user.id, 128),
      email: text(user.email),
      username: text(user.username, 128),
      ip: text(user.ip_address, 64),
      name: text(user.name, 128),
    },
    browser: { name: text(browser.name, 64), version: text(browser.version, 64) },
    os: { name: text(os.name, 64), version: text(os.version, 64) },
    device: { name: text(device.name, 64), brand: text(device.brand, 64), family: text(device.family, 64), model: text(device.model, 64) },
    tags: tagsOf(raw.tags),
  };
}

/**
 * The replay an error event belongs to: its replay context (`contexts.replay.replay_id`), else the
 * `replayId` tag — in buffer mode SDK 11 sends only the tag.
 */
export function replayIdOfEvent(event: { contexts?: Obj; tags?: unknown }): string | null {
  const fromContext = normalizeId(obj(obj(event.contexts).replay).replay_id);
  if (fromContext) return fromContext;
  const tags = event.tags;
  if (Array.isArray(tags)) {
    for (const p of tags) if (Array.isArray(p) && (p[0] === "replayId" || p[0] === "replay_id")) return normalizeId(p[1]);
  } else if (typeof tags === "object" && tags !== null) {
    const t = tags as Obj;
    return normalizeId(t.replayId ?? t.replay_id);
  }
  return null;
}
