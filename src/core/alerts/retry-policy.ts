/**
 * When a failed delivery is tried again (SPEC §9: 3 attempts, exponential backoff), honouring what
 * the remote asked for: `Retry-After` (seconds or an HTTP date) and Discord's JSON `retry_after`
 * (seconds, fractional). Pure: `now` is an argument.
 */

/** A remote may not push the next attempt further out than this. */
const MAX_WAIT_MS = 60 * 60_000;

/** Base × 4^(attempt-1) with ±10 % jitter from `rand` (0..1): 30 s, 2 min, 8 min… by default. */
export function backoffMs(attempt: number, baseMs: number, rand: number): number {
  const exp = baseMs * 4 ** Math.max(0, attempt - 1);
  return Math.min(MAX_WAIT_MS, Math.round(exp * (0.9 + 0.2 * rand)));
}

/** The wait the remote asked for (ms), or undefined. */
export function requestedWaitMs(status: number, headers: Record<string, string>, body: string, now: number): number | undefined {
  const header = headers["retry-after"];
  if (header !== undefined) {
    const secs = Number(header);
    if (Number.isFinite(secs) && secs >= 0) return Math.min(MAX_WAIT_MS, Math.ceil(secs * 1000));
    const at = Date.parse(header);
    if (!Number.isNaN(at)) return Math.min(MAX_WAIT_MS, Math.max(0, at - now));
  }
  if (status === 429 && body.startsWith("{")) {
    try {
      const parsed = JSON.parse(body) as { retry_after?: unknown };
      if (typeof parsed.retry_after === "number" && parsed.retry_after >= 0)
        return Math.min(MAX_WAIT_MS, Math.ceil(parsed.retry_after * 1000));
    } catch {
      // not JSON after all: no hint
    }
  }
  return undefined;
}

/** Whether an HTTP answer is worth retrying: rate limits, timeouts and server errors are; other 4xx are not. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}
