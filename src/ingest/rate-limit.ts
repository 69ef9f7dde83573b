/**
 * Rate limits and installation backpressure (SPEC §9), answered as 429 with `Retry-After` and
 * `X-Sentry-Rate-Limits` in the format the SDKs parse (reference §5.3):
 *
 *   <retry_after>:<categories ; separated, empty = all>:<scope>:<reason>
 *
 * - Per key and per project: fixed windows counted in memory (per process — several ingest
 *   processes each allow the limit). Only event-like categories (error, default, security) are
 *   limited, so sessions and client reports keep flowing and the SDK can report what it dropped.
 * - Backpressure: when the unprocessed queue is deeper than `maxQueue` or the data directory's
 *   free disk space is under `minFreeDisk`, everything is refused (all categories). Both are
 *   measured on a timer, never per request: free disk with statfs, the queue depth with an
 *   id-range estimate that is confirmed by an exact count only when it is over the limit.
 */
import fs from "node:fs";

/** Categories the per-key and per-project limits apply to (what event items count as). */
export const LIMITED_CATEGORIES = ["error", "default", "security"] as const;

export interface RateLimitVerdict {
  /** seconds until the client may send again (≥ 1) */
  retryAfter: number;
  /** empty: every category */
  categories: readonly string[];
  scope: "key" | "project" | "organization";
  reason: string;
}

/** The `X-Sentry-Rate-Limits` value for a verdict. */
export function formatRateLimits(v: RateLimitVerdict): string {
  return `${v.retryAfter}:${v.categories.join(";")}:${v.scope}:${v.reason}`;
}

/**
 * Item types Errata never keeps (profiles): an envelope carrying one is answered 200 with a rate
 * limit for their categories, so the SDK stops spending its users' bandwidth on them for an hour
 * (the SDKs honour `X-Sentry-Rate-Limits` on any status). `replay_video` (mobile replays) is not
 * kept either but shares the `replay` category with the browser replays Errata stores: it is only
 * counted filtered, never answered with a limit.
 */
const NOT_KEPT_TYPES = new Set(["profile", "profile_chunk"]);
const NOT_KEPT_LIMIT: RateLimitVerdict = {
  retryAfter: 3600,
  categories: ["profile", "profile_chunk"],
  scope: "organization",
  reason: "not_kept",
};

/** A project that turned replay storage off: its SDKs stop sending replays for an hour. */
export const REPLAYS_OFF_LIMIT: RateLimitVerdict = {
  retryAfter: 3600,
  categories: ["replay"],
  scope: "project",
  reason: "replays_disabled",
};

/** Extra response headers for an accepted envelope whose cut-out items included types Errata never keeps. */
export function notKeptHeaders(cutOut: readonly string[]): readonly string[] {
  return cutOut.some((t) => NOT_KEPT_TYPES.has(t)) ? ["X-Sentry-Rate-Limits", formatRateLimits(NOT_KEPT_LIMIT)] : [];
}

export interface RateLimitConfig {
  /** events per window per DSN key; 0 = unlimited */
  keyEvents: number;
  /** events per window per project; 0 = unlimited */
  projectEvents: number;
  windowSeconds: number;
  /** replay segments per window per DSN key (data category `replay`); 0 = unlimited */
  keyReplays?: number;
}

/** Counts per id in fixed windows aligned to multiples of the window length. */
class FixedWindow {
  private window = -1;
  private counts = new Map<number, number>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** The ms until the window ends when `id` has used its allowance, else undefined. */
  full(id: number, now: number): number | undefined {
    if (this.limit <= 0) return undefined;
    this.roll(now);
    return (this.counts.get(id) ?? 0) >= this.limit ? (this.window + 1) * this.windowMs - now : undefined;
  }

  take(id: number, now: number): void {
    if (this.limit <= 0) return;
    this.roll(now);
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }

  private roll(now: number): void {
    const w = Math.floor(now / this.windowMs);
    if (w === this.window) return;
    this.window = w;
    this.counts = new Map();
  }
}

/** Per-minute windows whose limit comes with each call (projects' own settings). */
class PerMinuteWindow {
  private window = -1;
  private counts = new Map<number, number>();

  full(id: number, limit: number, now: number): number | undefined {
    this.roll(now);
    return (this.counts.get(id) ?? 0) >= limit ? (this.window + 1) * 60_000 - now : undefined;
  }

  take(id: number, now: number): void {
    this.roll(now);
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }

  private roll(now: number): void {
    const w = Math.floor(now / 60_000);
    if (w === this.window) return;
    this.window = w;
    this.counts = new Map();
  }
}

export interface RateLimiter {
  /**
   * Counts one event for the key and its project; a verdict when any limit is reached: the
   * installation's per-project and per-key limits, and the project's own per-minute limit.
   */
  take(keyId: number, projectId: number, now: number, projectPerMinute?: number | null): RateLimitVerdict | undefined;
  /** Counts one replay segment for the key: replays are their own category, apart from events. */
  takeReplay(keyId: number, now: number): RateLimitVerdict | undefined;
}

export function createRateLimiter(cfg: RateLimitConfig): RateLimiter {
  const windowMs = Math.max(1, cfg.windowSeconds) * 1000;
  const keys = new FixedWindow(cfg.keyEvents, windowMs);
  const projects = new FixedWindow(cfg.projectEvents, windowMs);
  const ownLimits = new PerMinuteWindow();
  const replayKeys = new FixedWindow(cfg.keyReplays ?? 0, windowMs);
  const verdict = (ms: number, scope: "key" | "project", reason: string): RateLimitVerdict => ({
    retryAfter: Math.max(1, Math.ceil(ms / 1000)),
    categories: LIMITED_CATEGORIES,
    scope,
    reason,
  });
  return {
    take(keyId, projectId, now, projectPerMinute) {
      // A refused event uses up no allowance: every limit is checked before any is counted.
      const own = projectPerMinute ? ownLimits.full(projectId, projectPerMinute, now) : undefined;
      if (own !== undefined) return verdict(own, "project", "project_quota");
      const p = projects.full(projectId, now);
      if (p !== undefined) return verdict(p, "project", "project_quota");
      const k = keys.full(keyId, now);
      if (k !== undefined) return verdict(k, "key", "key_quota");
      if (projectPerMinute) ownLimits.take(projectId, now);
      projects.take(projectId, now);
      keys.take(keyId, now);
      return undefined;
    },
    takeReplay(keyId, now) {
      const k = replayKeys.full(keyId, now);
      if (k !== undefined)
        return { retryAfter: Math.max(1, Math.ceil(k / 1000)), categories: ["replay"], scope: "key", reason: "key_quota" };
      replayKeys.take(keyId, now);
      return undefined;
    },
  };
}

export interface BackpressureConfig {
  /** queued rows above which ingest refuses; 0 = off */
  maxQueue: number;
  /** free bytes on the data directory's disk below which ingest refuses; 0 = off */
  minFreeDisk: number;
  checkIntervalMs: number;
}

export interface BackpressureProbe {
  /** Unprocessed queue rows (may overestimate; exactness only matters near the limit). */
  queueEstimate(): Promise<number>;
  queueExact(): Promise<number>;
  /** Free bytes for the data directory, or undefined when it cannot be measured (PostgreSQL). */
  freeDisk(): Promise<number | undefined>;
}

export interface Backpressure {
  /** The current verdict (from the last measurement); cheap, called per request. */
  check(): RateLimitVerdict | undefined;
  /** Measures now (the timer calls this; tests too). */
  refresh(): Promise<void>;
  close(): void;
}

const RETRY_AFTER_BACKPRESSURE = 60;

export function createBackpressure(cfg: BackpressureConfig, probe: BackpressureProbe, onDepth?: (depth: number) => void): Backpressure {
  let current: RateLimitVerdict | undefined;
  let running: Promise<void> | undefined;
  const off = cfg.maxQueue <= 0 && cfg.minFreeDisk <= 0;

  async function measure(): Promise<void> {
    let next: RateLimitVerdict | undefined;
    if (cfg.minFreeDisk > 0) {
      const free = await probe.freeDisk();
      if (free !== undefined && free < cfg.minFreeDisk) next = refusal("disk_full");
    }
    const estimate = await probe.queueEstimate();
    let depth = estimate;
    if (cfg.maxQueue > 0 && estimate > cfg.maxQueue) {
      depth = await probe.queueExact();
      if (depth > cfg.maxQueue) next ??= refusal("queue_full");
    }
    onDepth?.(depth);
    current = next;
  }

  const timer = setInterval(
    () => {
      void refresh();
    },
    Math.max(100, cfg.checkIntervalMs),
  );
  timer.unref();

  function refresh(): Promise<void> {
    if (off && !onDepth) return Promise.resolve();
    // One measurement at a time; a slow disk must not pile them up.
    running ??= measure()
      .catch(() => {
        // A failed measurement keeps the last verdict; the next tick tries again.
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }
  void refresh();

  return {
    check: () => current,
    refresh,
    close: () => clearInterval(timer),
  };
}

function refusal(reason: string): RateLimitVerdict {
  return { retryAfter: RETRY_AFTER_BACKPRESSURE, categories: [], scope: "organization", reason };
}

/** Free bytes available to unprivileged writers on the filesystem holding `dir`. */
export async function freeDiskBytes(dir: string): Promise<number | undefined> {
  try {
    const s = await fs.promises.statfs(dir);
    return Number(s.bavail) * Number(s.bsize);
  } catch {
    return undefined;
  }
}
