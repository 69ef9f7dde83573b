/** Formatting helpers shared by server components. Pure; `now` is an argument where it matters. */

/** Epoch milliseconds from a Sentry timestamp (seconds float, milliseconds, or ISO string); null when unreadable. */
export function toMillis(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v < 1e11 ? v * 1000 : v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    if (Number.isFinite(n)) return toMillis(n);
    const t = Date.parse(v);
    return Number.isNaN(t) ? null : t;
  }
  return null;
}

/** "2025-03-04 13:05:09 UTC" */
export function absoluteTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  return `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "13:05:09.123" (UTC), for breadcrumbs. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return "";
  return d.toISOString().slice(11, 23);
}

/** "just now", "5m ago", "3h ago", "2d ago", "4mo ago", "1y ago"; future times as "in 5m". */
export function relativeTime(ms: number, now: number = Date.now()): string {
  const diff = now - ms;
  const abs = Math.abs(diff);
  const s = Math.round(abs / 1000);
  let text: string;
  if (s < 45) return diff >= 0 ? "just now" : "in a moment";
  if (s < 60 * 60) text = `${Math.max(1, Math.round(s / 60))}m`;
  else if (s < 60 * 60 * 24) text = `${Math.round(s / 3600)}h`;
  else if (s < 60 * 60 * 24 * 30) text = `${Math.round(s / 86400)}d`;
  else if (s < 60 * 60 * 24 * 365) text = `${Math.round(s / (86400 * 30))}mo`;
  else text = `${Math.round(s / (86400 * 365))}y`;
  return diff >= 0 ? `${text} ago` : `in ${text}`;
}

/** The noun for `n` of it: singular for exactly one ("event" / "events"); the one plural rule of the screens. */
export function nounFor(n: number, noun: string, plural = `${noun}s`): string {
  return n === 1 ? noun : plural;
}

/** "1 event", "1,234 events": a count with its noun, singular for exactly one. */
export function countOf(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString("en")} ${nounFor(n, noun, plural)}`;
}

/** 1234 → "1.2k", 1234567 → "1.2M"; small numbers as they are. */
export function compactCount(n: number): string {
  if (!Number.isFinite(n)) return "–";
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(n < 10_000_000 ? 1 : 0).replace(/\.0$/, "")}M`;
}

const MAX_TEXT = 20_000;

/** Any payload value as display text: strings as-is, scalars stringified, objects as JSON. Never throws. */
export function toText(v: unknown, max: number = MAX_TEXT): string {
  let s: string;
  if (typeof v === "string") s = v;
  else if (v === null || v === undefined) s = "";
  else if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") s = String(v);
  else {
    try {
      s = JSON.stringify(v) ?? "";
    } catch {
      s = "[unserialisable value]";
    }
  }
  return s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
}

/** Pretty JSON for display; never throws. */
export function prettyJson(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? "";
  } catch {
    return "[unserialisable value]";
  }
}

/** 45 → "45 min", 120 → "2 h", 10080 → "7 d" (the largest whole unit). */
export function durationText(minutes: number): string {
  if (minutes > 0 && minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes > 0 && minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}
