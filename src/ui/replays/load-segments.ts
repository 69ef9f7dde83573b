/**
 * The player's data: the replay's recording segments from Sentry's REST endpoint (the same one the
 * CLI and MCP server read), the first segment alone so the first frame shows at once, then the
 * rest in pages following the Link header's next cursor.
 */

export interface SegmentPage {
  events: unknown[];
  next: string | null;
}

/** Sentry's Link header: the next page's URL when it says `results="true"`. */
export function nextLink(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(",")) {
    if (!/rel="next"/.test(part) || !/results="true"/.test(part)) continue;
    const url = /<([^>]+)>/.exec(part)?.[1];
    if (url) return url;
  }
  return null;
}

export async function fetchSegments(url: string, signal: AbortSignal): Promise<SegmentPage> {
  const res = await fetch(url, { credentials: "same-origin", headers: { accept: "application/json" }, signal });
  if (!res.ok)
    throw new Error(res.status === 404 ? "This replay is no longer stored." : `The recording could not be loaded (HTTP ${res.status}).`);
  const segments = (await res.json()) as unknown;
  const events = Array.isArray(segments) ? segments.flatMap((s) => (Array.isArray(s) ? s : [])) : [];
  // The Link header carries PUBLIC_URL; only its path and query are fetched (same origin).
  const next = nextLink(res.headers.get("link"));
  return { events, next: next ? new URL(next, window.location.href).pathname + new URL(next, window.location.href).search : null };
}

type Timed = { timestamp: number };

/** One segment's download as stored (zlib): the player reads each (the first is preloaded by the server render). */
export function segmentUrl(segmentsUrl: string, segmentId = 0): string {
  return `${segmentsUrl}${segmentId}/?download=true&encoding=zlib`;
}

/**
 * One segment's events from its stored bytes (the player's first frame: the server sends the zlib
 * it keeps, the browser inflates it); null when the replay has no such segment.
 */
export async function fetchSegment(url: string, signal: AbortSignal): Promise<unknown[] | null> {
  const res = await fetch(url, { credentials: "same-origin", signal });
  if (res.status === 404) return null;
  if (!res.ok || !res.body) throw new Error(`The recording could not be loaded (HTTP ${res.status}).`);
  const text = await new Response(res.body.pipeThrough(new DecompressionStream("deflate"))).text();
  const events = JSON.parse(text) as unknown;
  return Array.isArray(events) ? events : [];
}

/**
 * rrweb wants events in time order, in epoch ms. The SDK writes its performance spans' custom
 * events with seconds (as Sentry's own player corrects), and segments may overlap at their edges.
 */
export function byTime(events: unknown[]): Timed[] {
  return events
    .filter((e): e is Timed => typeof (e as { timestamp?: unknown })?.timestamp === "number" && (e as Timed).timestamp > 0)
    .map((e) => (e.timestamp < 1e11 ? { ...e, timestamp: Math.round(e.timestamp * 1000) } : e))
    .sort((a, b) => a.timestamp - b.timestamp);
}
