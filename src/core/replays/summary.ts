/**
 * What Errata derives from a segment's rrweb events, as Sentry derives it at ingest: clicks, dead
 * clicks and rage clicks from the SDK's own click breadcrumbs, the segment's time span, and the
 * page URLs it visited. Scrubbing applies the project's server-side rules to the recording (what it
 * carries in the clear: URLs, breadcrumbs, network bodies and headers, console payloads, DOM
 * attribute values); text and inputs the SDK masked stay masked — nothing is ever unmasked. Pure.
 */
import { DEFAULT_SENSITIVE_KEYS } from "../scrub/patterns";
import { type ScrubSettings, scrubData } from "../scrub/scrub-event";

export interface SegmentSummary {
  /** first and last event time (epoch ms); null for a segment without timed events */
  startedAt: number | null;
  endedAt: number | null;
  clicks: number;
  deadClicks: number;
  rageClicks: number;
  /** page URLs the segment's Meta events name, in order (the replay_event's `urls` come first) */
  urls: string[];
}

/** rrweb event types (rrweb `EventType`). */
export const RRWEB = { FullSnapshot: 2, IncrementalSnapshot: 3, Meta: 4, Custom: 5 } as const;

/** Sentry's rule (replays ingest, `ui.slowClickDetected`): only these targets count as dead or rage. */
const CLICK_TARGETS = new Set(["a", "button", "input"]);
/** Sentry counts a slow click as dead after 7 s without a reaction, as rage from 5 clicks. */
export const DEAD_CLICK_MS = 7000;
export const RAGE_CLICK_COUNT = 5;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/** A breadcrumb carried in the recording (custom event tag "breadcrumb"), or undefined. */
export function breadcrumbOf(e: unknown): Obj | undefined {
  const ev = obj(e);
  if (ev.type !== RRWEB.Custom) return undefined;
  const data = obj(ev.data);
  return data.tag === "breadcrumb" ? obj(data.payload) : undefined;
}

/** Dead / rage classification of a `ui.slowClickDetected` breadcrumb, as Sentry's ingest does it. */
export function slowClickKind(crumb: Obj): "dead" | "rage" | undefined {
  if (crumb.category !== "ui.slowClickDetected") return undefined;
  const data = obj(crumb.data);
  if (data.endReason !== "timeout") return undefined;
  const tag = obj(data.node).tagName;
  if (typeof tag !== "string" || !CLICK_TARGETS.has(tag.toLowerCase())) return undefined;
  if (num(data.timeAfterClickMs ?? data.timeafterclickms) < DEAD_CLICK_MS) return undefined;
  return num(data.clickCount ?? data.clickcount) >= RAGE_CLICK_COUNT ? "rage" : "dead";
}

/** An rrweb event's time in epoch ms: the SDK writes ms, but some custom events carry seconds. */
export function eventTime(v: unknown): number | null {
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) return null;
  return Math.round(v < 1e11 ? v * 1000 : v);
}

export function summarizeSegment(events: readonly unknown[]): SegmentSummary {
  const out: SegmentSummary = { startedAt: null, endedAt: null, clicks: 0, deadClicks: 0, rageClicks: 0, urls: [] };
  for (const e of events) {
    const ev = obj(e);
    const ts = eventTime(ev.timestamp);
    if (ts !== null) {
      if (out.startedAt === null || ts < out.startedAt) out.startedAt = ts;
      if (out.endedAt === null || ts > out.endedAt) out.endedAt = ts;
    }
    if (ev.type === RRWEB.Meta) {
      const href = obj(ev.data).href;
      if (typeof href === "string" && href !== "" && out.urls.at(-1) !== href && out.urls.length < 1000) out.urls.push(href.slice(0, 2048));
      continue;
    }
    const crumb = breadcrumbOf(e);
    if (!crumb) continue;
    if (crumb.category === "ui.click") out.clicks += 1;
    const kind = slowClickKind(crumb);
    if (kind) {
      // A rage click is a dead click too (Sentry counts it in both).
      out.deadClicks += 1;
      if (kind === "rage") out.rageClicks += 1;
    }
  }
  return out;
}

/** Sentry's replay activity score (1–10): errors weigh 25, pages visited 5. */
export function activityScore(errors: number, urls: number): number {
  return Math.floor(Math.min(10, Math.max(1, (errors * 25 + urls * 5) / 10)));
}

/**
 * The project's scrubbing rules over a segment's events: the same object back when nothing was
 * found (the caller then keeps the SDK's compressed bytes as they are).
 */
export function scrubSegment<T extends readonly unknown[]>(events: T, settings: ScrubSettings): T {
  return scrubData(events, settings);
}

// ---------------------------------------------------------------------------------------------
// The fast path: most segments carry nothing to scrub and no slow click. Reading them from the text
// (a few scans) instead of parsing and walking ~1 MB of JSON is the difference between ~8 ms and
// ~20 ms of CPU per segment (bench:replay); anything these scans cannot rule out takes the full path.

const SINGLE_WORD_KEYS = DEFAULT_SENSITIVE_KEYS.filter((k) => !k.includes("_"));
const MULTI_WORD_KEYS = new RegExp(
  DEFAULT_SENSITIVE_KEYS.filter((k) => k.includes("_"))
    .map((k) => k.split("_").join("[-_\\s.]?"))
    .join("|"),
);
/** Card-number-like digit runs (issuer digits 2–6: epoch-ms timestamps start with 1 until 2033). */
const CARD_LIKE = /[2-6]\d{3}[ -]?\d{4}[ -]?\d{4}/;
/** `scheme://user:password@` */
const URL_PASSWORD = /:\/\/[^/\s"@]*:[^/\s"@]*@/;

/**
 * Whether the project's scrubbing could change anything in this recording text: a sensitive key
 * name anywhere (as a key, a parameter or a header: the scrubber matches them as substrings), a
 * bearer token, a private key, a URL password or a card-number-like number. False means the
 * scrubber would return the events unchanged, so it need not run. Conservative by design.
 */
export function mayNeedScrubbing(text: string, settings: ScrubSettings): boolean {
  if (!settings.enabled) return false;
  const lower = text.toLowerCase();
  for (const k of SINGLE_WORD_KEYS) if (lower.includes(k)) return true;
  for (const k of settings.extraKeys) if (extraKeyPattern(k).test(lower)) return true;
  if (lower.includes("pwd") || MULTI_WORD_KEYS.test(lower)) return true;
  return CARD_LIKE.test(text) || URL_PASSWORD.test(text);
}

/** An extra key as the scrubber matches it: case- and separator-insensitive (`my-key` is `my_key`). */
function extraKeyPattern(key: string): RegExp {
  const parts = key
    .toLowerCase()
    .split(/[-_\s.]+/)
    .filter(Boolean)
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(parts.join("[-_\\s.]?") || "(?!)");
}

const TIMESTAMP = /"timestamp":(\d+(?:\.\d+)?)/g;
const META = '{"type":4,';
const HREF = /"href":("(?:[^"\\]|\\.)*")/y;
const META_HEAD = /^\{"type":4,(?:"timestamp":[\d.]+,)?"data":\{$/;
const CLICK = '"category":"ui.click"';

/**
 * The summary of a segment read from its JSON text, as summarizeSegment would compute it; null when
 * the text holds a slow click (its dead/rage rule needs the parsed breadcrumb) — parse it then.
 */
export function summarizeText(text: string): SegmentSummary | null {
  if (text.includes('"ui.slowClickDetected"')) return null;
  const out: SegmentSummary = { startedAt: null, endedAt: null, clicks: 0, deadClicks: 0, rageClicks: 0, urls: [] };
  for (const m of text.matchAll(TIMESTAMP)) {
    const ts = eventTime(Number(m[1]));
    if (ts === null) continue;
    if (out.startedAt === null || ts < out.startedAt) out.startedAt = ts;
    if (out.endedAt === null || ts > out.endedAt) out.endedAt = ts;
  }
  for (let i = text.indexOf(CLICK); i !== -1; i = text.indexOf(CLICK, i + CLICK.length)) out.clicks += 1;
  // Meta events (`{"type":4,…}`, whatever the key order): their page URL.
  for (let i = text.indexOf(META); i !== -1; i = text.indexOf(META, i + META.length)) {
    const at = text.indexOf('"href":', i);
    // Only the Meta event's own `data.href` (a CDATA node is type 4 too): nothing else in between.
    if (at === -1 || at - i > 64 || !META_HEAD.test(text.slice(i, at))) continue;
    HREF.lastIndex = at;
    const m = HREF.exec(text);
    let href: unknown;
    try {
      href = m ? JSON.parse(m[1] as string) : undefined;
    } catch {
      continue;
    }
    if (typeof href === "string" && href !== "" && out.urls.at(-1) !== href && out.urls.length < 1000) out.urls.push(href.slice(0, 2048));
  }
  return out;
}
