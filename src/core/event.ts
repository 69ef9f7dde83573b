/**
 * The normalised event: what `normalizeEvent` produces from whatever an SDK sent, what grouping
 * reads and what is stored (gzip JSON) and rendered. It stays a Sentry-shaped event — unknown
 * fields are kept — but the fields below have one shape each, so nothing downstream re-checks.
 */

export type Level = "fatal" | "error" | "warning" | "info" | "debug";

/** Something normalisation changed, dropped or replaced; the UI shows these as processing notes. */
export interface ProcessingNote {
  /** machine-readable kind, e.g. `trimmed`, `dropped`, `invalid_timestamp` */
  type: string;
  /** dotted path of the affected field, e.g. `exception.values.0.stacktrace.frames` */
  path?: string;
  /** human-readable explanation (never contains payload data beyond lengths and field names) */
  detail: string;
}

export type Pairs = Array<[string, string]>;

export interface Frame {
  filename?: string;
  abs_path?: string;
  function?: string;
  raw_function?: string;
  module?: string;
  package?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  context_line?: string;
  pre_context?: unknown[];
  post_context?: unknown[];
  [key: string]: unknown;
}

export interface Stacktrace {
  frames: Frame[];
  [key: string]: unknown;
}

export interface Mechanism {
  type?: string;
  handled?: boolean;
  synthetic?: boolean;
  [key: string]: unknown;
}

export interface ExceptionValue {
  type?: string;
  value?: string;
  module?: string;
  mechanism?: Mechanism;
  stacktrace?: Stacktrace;
  [key: string]: unknown;
}

export interface Thread {
  id?: unknown;
  name?: string;
  crashed?: boolean;
  current?: boolean;
  stacktrace?: Stacktrace;
  [key: string]: unknown;
}

export interface Breadcrumb {
  timestamp?: number;
  type?: string;
  category?: string;
  message?: string;
  level?: string;
  data?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface LogEntry {
  /** the message as shown (interpolated) */
  formatted?: string;
  /** the template (grouping prefers it: parameters do not split issues) */
  message?: string;
  params?: unknown;
  [key: string]: unknown;
}

export interface EventUser {
  id?: string;
  email?: string;
  ip_address?: string;
  username?: string;
  name?: string;
  [key: string]: unknown;
}

export interface EventRequest {
  url?: string;
  method?: string;
  /** always pairs after normalisation (SDKs send a string, an object or pairs) */
  query_string?: Pairs;
  /** always pairs after normalisation */
  cookies?: Pairs;
  /** always pairs after normalisation (a header may repeat) */
  headers?: Pairs;
  data?: unknown;
  env?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Errata's own annotations, kept apart from the SDK's fields. */
export interface ErrataMeta {
  notes: ProcessingNote[];
  /** Filled by the digest pipeline after grouping: why the event landed in its issue. */
  grouping?: {
    version: string;
    /** the primary hash (first of `hashes`) */
    hash: string;
    source: string;
    components: string[];
    /** every hash of the event (v2: one per contributing variant), primary first */
    hashes?: string[];
    /** variant name per hash (`app`, `system`, `custom-fingerprint`, `message`, …) */
    variants?: string[];
    /** set when the project is in a grouping transition: the previous version's hashes, also matched */
    previous?: { version: string; hashes: string[] };
  };
}

export interface NormalizedEvent {
  event_id: string;
  /** unix seconds (float), clamped to the accepted window around `received` */
  timestamp: number;
  /** unix seconds (float) when ingest accepted the event */
  received: number;
  platform: string;
  level: Level;
  logger?: string;
  transaction?: string;
  server_name?: string;
  release?: string;
  dist?: string;
  environment?: string;
  logentry?: LogEntry;
  exception?: { values: ExceptionValue[]; [key: string]: unknown };
  threads?: { values: Thread[]; [key: string]: unknown };
  breadcrumbs?: { values: Breadcrumb[]; [key: string]: unknown };
  tags?: Pairs;
  contexts?: Record<string, Record<string, unknown>>;
  user?: EventUser;
  request?: EventRequest;
  fingerprint?: string[];
  extra?: Record<string, unknown>;
  errata: ErrataMeta;
  [key: string]: unknown;
}

export interface NormalizeContext {
  /** The id the envelope header (or ingest) assigned; it wins over the payload's. */
  eventId?: string;
  /** epoch milliseconds when ingest accepted the event */
  receivedAt: number;
  /** connection IP as ingest saw it (first X-Forwarded-For hop or socket), if any */
  clientIp: string | null;
  /**
   * epoch milliseconds of the envelope header's `sent_at` (the SDK's clock when it sent), if any:
   * a difference of 55 minutes or more from `receivedAt` is clock drift and shifts timestamps.
   */
  sentAt?: number;
}

/** Trimming limits (SPEC §5); defaults below, overridable for tests. */
export interface TrimLimits {
  messageChars: number;
  tagKeyChars: number;
  tagValueChars: number;
  maxBreadcrumbs: number;
  maxFrames: number;
  /** frames (per stack trace) that keep `pre_context`, `post_context` and `vars` */
  maxFramesWithDetail: number;
}

export const DEFAULT_TRIM_LIMITS: TrimLimits = {
  messageChars: 8192,
  tagKeyChars: 200,
  tagValueChars: 200,
  maxBreadcrumbs: 100,
  maxFrames: 250,
  maxFramesWithDetail: 50,
};

/**
 * Relay's string limits (reference §6.2): `max` characters (code points), plus an `allowance`
 * tolerated before cutting; a cut string is `max` characters ending in "...".
 */
export interface CharLimit {
  max: number;
  allowance: number;
}

export const CHAR_LIMITS = {
  message: { max: 8192, allowance: 200 },
  summary: { max: 1024, allowance: 100 },
  symbol: { max: 256, allowance: 20 },
  path: { max: 256, allowance: 40 },
  shortPath: { max: 128, allowance: 20 },
  enumLike: { max: 128, allowance: 0 },
  logger: { max: 64, allowance: 0 },
  email: { max: 75, allowance: 0 },
  culprit: { max: 200, allowance: 0 },
  tagValue: { max: 200, allowance: 0 },
  environment: { max: 64, allowance: 0 },
  dist: { max: 64, allowance: 0 },
} as const satisfies Record<string, CharLimit>;

/** Relay's data bags: serialised size (approximated in UTF-16 units) and nesting depth. */
export interface BagLimit {
  maxBytes: number;
  maxDepth: number;
}

export const BAG_LIMITS = {
  /** each `contexts` entry */
  context: { maxBytes: 8 * 1024, maxDepth: 7 },
  /** each `extra` item */
  extraItem: { maxBytes: 16 * 1024, maxDepth: 7 },
  /** all of `extra` */
  extra: { maxBytes: 256 * 1024, maxDepth: 7 },
  /** `request.data` */
  requestData: { maxBytes: 8 * 1024, maxDepth: 7 },
  /** each breadcrumb's `data` (Relay: medium) */
  breadcrumbData: { maxBytes: 2 * 1024, maxDepth: 5 },
  /** each frame's `vars` (Relay: medium) */
  frameVars: { maxBytes: 2 * 1024, maxDepth: 5 },
  /** `user.data` (Relay: medium) */
  userData: { maxBytes: 2 * 1024, maxDepth: 5 },
  /** each exception's `mechanism.data` (Relay: medium) */
  mechanismData: { maxBytes: 2 * 1024, maxDepth: 5 },
} as const satisfies Record<string, BagLimit>;

/** Relay's clock-drift threshold: a `sent_at` this far from the receive time shifts timestamps. */
export const CLOCK_DRIFT_THRESHOLD_SECS = 55 * 60;

/** Accepted clock window (reference §6.3). */
export const MAX_SECS_IN_PAST = 30 * 24 * 3600;
export const MAX_SECS_IN_FUTURE = 60;
