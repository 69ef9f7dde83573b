/**
 * Every setting Errata reads, with its default, unit and reason. This is the only file that reads
 * `process.env`; everything else receives a `Config` (tests build one with `loadConfig({...})`).
 */
import path from "node:path";
import { z } from "zod";
import { parseTrustedProxies } from "./core/security/client-ip";

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

const int = (def: number) => z.coerce.number().int().nonnegative().default(def);
const bool = (def: boolean) =>
  z
    .enum(["true", "false", "1", "0", "yes", "no", ""])
    .default(def ? "true" : "false")
    .transform((v) => v === "true" || v === "1" || v === "yes");

const EnvSchema = z.object({
  // Where to listen. Loopback by default: exposing Errata is an explicit decision.
  HOST: z.string().default("127.0.0.1"),
  PORT: int(9000),
  // The URL users and SDKs reach us at. Sentry tools and Better Auth need absolute URLs and the
  // request's Host header cannot be trusted behind proxies, so it comes from config.
  PUBLIC_URL: z.string().url().optional(),
  // The URL SDKs send events to, the host of every DSN Errata prints (CLI, UI, REST `dsn.public`).
  // Unset: PUBLIC_URL, right for one process and for a proxy that routes /api/{id}/envelope|store|
  // security|csp-report|cron/ and /api/embed/error-page/ to the ingest role (docs/scaling.md). Set it
  // when ingest has its own address (`https://ingest.example.com`) that SDKs reach directly.
  PUBLIC_INGEST_URL: z.string().url().optional(),
  // SQLite file lives here (and the generated auth secret). Relative paths resolve from the cwd.
  DATA_DIR: z.string().default("./data"),
  // postgres://… selects PostgreSQL; absent → the embedded SQLite file.
  DATABASE_URL: z.string().optional(),
  // Secret for session signing; generated into DATA_DIR on first start when absent.
  ERRATA_SECRET: z.string().min(16).optional(),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // web, ingest, worker (comma separated); one process runs all three by default.
  ERRATA_ROLES: z.string().default("web,ingest,worker"),
  // SQLite synchronous mode. NORMAL in WAL mode survives process crashes (kill -9) — what a 200
  // promises — but may lose the last transactions on power loss; FULL also survives that.
  SQLITE_SYNCHRONOUS: z.enum(["NORMAL", "FULL"]).default("NORMAL"),

  // Ingest limits (SPEC §5).
  MAX_COMPRESSED_BODY: int(20 * MiB),
  MAX_ENVELOPE_SIZE: int(100 * MiB),
  MAX_EVENT_SIZE: int(1 * MiB),
  MAX_ATTACHMENT_SIZE: int(20 * MiB),
  MAX_HEADER_LINE: int(8 * KiB),
  // A body that has not finished arriving after this long is cut off (slow clients hold sockets).
  INGEST_BODY_TIMEOUT_MS: int(30_000),
  // Group commit: requests arriving within this window (or until the batch is full) share one
  // transaction, so one fsync-equivalent serves many requests. 0 (default): the requests completed
  // in the same turn of the event loop, plus all that arrive while the previous write is in
  // flight; measured ~7 points of the bare-node ratio better than 2 ms at 64 connections.
  GROUP_COMMIT_WINDOW_MS: int(0),
  GROUP_COMMIT_MAX_ITEMS: int(512),
  // Queue writes in flight at once. 2: the database commits one batch while ingest answers the
  // previous one and gathers the next (one at a time, each waited for the other).
  GROUP_COMMIT_IN_FLIGHT: int(2),
  // Rate limits (SPEC §9): events per window per DSN key and per project, counted in memory by
  // each ingest process (N ingest processes allow N× the limit). 0 = no limit, the default.
  // Refused events get 429 with Retry-After and X-Sentry-Rate-Limits; the SDKs back off.
  RATE_LIMIT_KEY_EVENTS: int(0),
  RATE_LIMIT_PROJECT_EVENTS: int(0),
  RATE_LIMIT_WINDOW_SECONDS: int(60),
  // Installation backpressure (SPEC §9): ingest answers 429 to everything while more than this
  // many accepted requests wait for the digest worker, or while the disk holding DATA_DIR has
  // less free space than this (MiB; SQLite only). 0 turns a check off. Measured on a timer.
  BACKPRESSURE_MAX_QUEUE: int(1_000_000),
  BACKPRESSURE_MIN_FREE_DISK_MB: int(1024),
  BACKPRESSURE_CHECK_MS: int(2000),
  // Outcomes ingest decides itself (refused requests, item types it does not store) are counted
  // in memory and written with the next group commit, or after this long when nothing is queued.
  OUTCOME_FLUSH_MS: int(1000),

  // Digest worker: how many queued envelopes one transaction digests, and how long a claim lasts
  // before another worker may take the batch again (crash recovery).
  WORKER_BATCH_SIZE: int(200),
  WORKER_IDLE_POLL_MS: int(100),
  WORKER_LEASE_MS: int(60_000),
  // Scheduling niceness of the digest thread (Linux; 0–19). Ingest acknowledges first and the
  // digest catches up on idle CPU: under a burst the queue grows (bounded by backpressure) instead
  // of ingest slowing down. 0 keeps the digest at ingest's priority.
  WORKER_NICE: int(10),
  // Digest threads in a process with the worker role. Parsing, normalising, grouping and
  // compressing an event is ~85 % of its digest cost and runs outside the write transaction, so a
  // second thread uses the second core while the first holds SQLite's write lock. The first thread
  // also runs the periodic jobs (retention, alerts, monitors, uptime); the others only digest.
  WORKER_THREADS: int(2),

  // Login throttling (SPEC §9, issue 27): failed sign-ins per window, in the database so every web
  // process shares them. LOGIN_MAX_ATTEMPTS counts per (account, client address) — the guesser's
  // address is stopped, the owner's is not — and per device cookie; the address alone gets
  // LOGIN_MAX_ATTEMPTS_PER_ADDRESS across accounts. The account is locked for everyone only past
  // LOGIN_ACCOUNT_LOCK_ATTEMPTS failures within LOGIN_ACCOUNT_LOCK_SECONDS (a brief lock), and
  // then not for a browser that signed in to it before (device cookie). Successes are not counted;
  // a refusal answers 429 `sign_in_throttled` or `account_locked` with Retry-After.
  LOGIN_MAX_ATTEMPTS: int(10),
  LOGIN_MAX_ATTEMPTS_PER_ADDRESS: int(30),
  LOGIN_WINDOW_SECONDS: int(15 * 60),
  LOGIN_ACCOUNT_LOCK_ATTEMPTS: int(100),
  LOGIN_ACCOUNT_LOCK_SECONDS: int(5 * 60),
  // Back-off per address (issue 39): past LOGIN_BACKOFF_AFTER failures from one address (counted
  // sooner when they aim at several accounts) it waits LOGIN_BACKOFF_SECONDS before its next try,
  // doubling per failure up to the window — a distributed guess costs the guessers' addresses
  // time, not the owner. While the account lock holds, its owner is e-mailed (SMTP) a one-time
  // link that lets a browser sign in despite it. 0 turns the back-off off.
  LOGIN_BACKOFF_AFTER: int(5),
  LOGIN_BACKOFF_SECONDS: int(2),
  SESSION_DAYS: int(30),
  // Mark cookies Secure; on automatically when PUBLIC_URL is https.
  SECURE_COOKIES: bool(false),

  // Issue lifecycle (SPEC §9): unresolved/new (and regressed) issues become "ongoing" after this.
  ISSUE_ONGOING_AFTER_DAYS: int(7),
  // Retention (SPEC §9): events older than this are deleted (per project: settings.retentionDays),
  // and a project keeps at most this many events (settings.eventCap); an issue's first and
  // latest events are always kept and issue counts never change.
  RETENTION_DAYS: int(90),
  RETENTION_EVENT_CAP: int(1_000_000),
  // The retention job runs in the digest worker this often, first shortly after start, deleting
  // at most RETENTION_BATCH_SIZE events per transaction and pausing between them so ingest and
  // the digest always get the database (SQLite has one writer).
  RETENTION_INTERVAL_MS: int(10 * 60_000),
  RETENTION_FIRST_RUN_DELAY_MS: int(30_000),
  RETENTION_BATCH_SIZE: int(500),
  RETENTION_PAUSE_MS: int(20),
  // Uploaded artifact bundles (source maps) no frame has used for this many days are deleted by
  // the same job, as Sentry does after 90 days; 0 keeps them forever.
  ARTIFACT_RETENTION_DAYS: int(90),
  // Monitor history (cron check-ins, uptime results) is kept this many days, or the project's
  // retention when that is shorter; 30 days covers the monitor page's 30-day availability.
  MONITOR_HISTORY_DAYS: int(30),
  // Time-based issue transitions (new → ongoing, ignore-until-time expiry) are swept this often.
  LIFECYCLE_SWEEP_INTERVAL_MS: int(60_000),

  // Source-map uploads (reference §8.3). Chunk size is what sentry-cli splits bundles into; Sentry
  // uses 8 MiB and the CLIs require a power of two. A request carries at most this many chunks /
  // bytes (Sentry: 64 and 32 MiB).
  SOURCEMAP_CHUNK_SIZE: int(8 * MiB),
  SOURCEMAP_CHUNKS_PER_REQUEST: int(64),
  SOURCEMAP_MAX_REQUEST_SIZE: int(32 * MiB),
  // Largest assembled bundle: it is joined on disk (DATA_DIR/tmp) and unpacked an entry at a time,
  // so this bounds scratch disk and database rows, not memory. Large Next.js apps produce bundles
  // of a few tens of MiB.
  SOURCEMAP_MAX_BUNDLE_SIZE: int(128 * MiB),
  // One file inside a bundle, decompressed (zip-bomb bound); the biggest real maps are ~30 MiB.
  SOURCEMAP_MAX_FILE_SIZE: int(64 * MiB),
  // All files of one bundle, decompressed: bounds what one upload makes the assembly thread inflate,
  // hash and re-compress (a 480 KB zip of zeros can hold 480 MiB). Answered with
  // `bundle_unpacked_too_large` past it.
  SOURCEMAP_MAX_UNPACKED_SIZE: int(512 * MiB),
  // Parsed source maps kept by the digest worker, in estimated bytes (a parsed map costs about 3x
  // its JSON size): enough for the maps of a few busy apps without growing without bound.
  SOURCEMAP_CACHE_BYTES: int(128 * MiB),
  // When maps arrive after their events: how far back, and how many events per upload, are
  // re-symbolicated in the background.
  SOURCEMAP_RESYMBOLICATE_DAYS: int(7),
  SOURCEMAP_RESYMBOLICATE_MAX_EVENTS: int(1000),
  // Reverse proxies whose X-Forwarded-For is believed (comma separated addresses or CIDR ranges,
  // e.g. `127.0.0.1,10.0.0.0/8`). Empty (default): the socket peer is the client, since anyone can
  // write that header; behind a proxy every user would then share the proxy's login throttle.
  TRUSTED_PROXIES: z.string().default(""),
  // Serves /debug/throw, a page that fails on purpose, so tests can see the product error page.
  // Never enable in production.
  ERRATA_TEST_ROUTES: bool(false),
  // /metrics names per-project volumes. With a token it answers only `Authorization: Bearer
  // <token>` (from anywhere); without one only clients on the loopback interface — behind a proxy
  // on the same machine every client looks local, so set a token (or do not proxy /metrics).
  METRICS_TOKEN: z.string().min(16).optional(),

  // Outgoing mail (invitations, password resets; later alerts). Unset SMTP_HOST: no mail is sent
  // and the UI offers copyable links instead. SMTP_SECURE: TLS from the first byte (port 465);
  // otherwise STARTTLS when the server offers it. SMTP_FROM is the sender address.
  SMTP_HOST: z.string().optional(),
  SMTP_PORT: int(587),

  // Alerts (issue 11, SPEC §7/§9). Webhooks to loopback, private, link-local and metadata
  // addresses are refused (SSRF) unless allowed here: everything private, or a comma-separated
  // list of host names / CIDR ranges. Checked on the address actually connected to.
  ALERTS_ALLOW_PRIVATE_WEBHOOKS: bool(false),
  ALERTS_WEBHOOK_ALLOW_HOSTS: z.string().default(""),
  // Delivery: attempts per message (SPEC §9: 3), per-attempt timeout (10 s), first backoff (then
  // ×4 per attempt, or what Retry-After / Discord's retry_after asks for).
  ALERTS_MAX_ATTEMPTS: int(3),
  ALERTS_TIMEOUT_MS: int(10_000),
  ALERTS_BACKOFF_MS: int(30_000),
  // How often the delivery loop looks for due messages, and how long a claimed message is
  // reserved for the worker sending it (a crashed worker's messages are sent again after it; keep
  // it above ALERTS_TIMEOUT_MS).
  ALERTS_POLL_MS: int(1000),
  ALERTS_LEASE_MS: int(60_000),
  // Next.js (issue 44): how long an alert about one side of a digest waits for the other (the
  // browser's mirror of a server render error comes seconds later; together they are one
  // message, sent as soon as both are in), and how long a deploy-skew alert gathers its burst
  // before it is sent with the burst's count. 0 sends at once.
  ALERTS_NEXTJS_PAIR_MS: int(30_000),
  ALERTS_NEXTJS_BURST_MS: int(30_000),
  SMTP_SECURE: bool(false),
  SMTP_USER: z.string().optional(),
  SMTP_PASSWORD: z.string().optional(),
  SMTP_FROM: z.string().default("Errata <errata@localhost>"),
  // Invitations expire after this many days (SPEC §9: 7).
  INVITATION_DAYS: int(7),
  // "Forgot password" links (sent only when SMTP is configured) work once, for this long.
  PASSWORD_RESET_MINUTES: int(60),

  // Cron monitors: the worker's schedule evaluator looks for missed and timed-out check-ins this
  // often. Sentry evaluates once a minute; 10 s keeps a missed run visible within seconds of
  // its margin at the cost of one cheap indexed query per tick.
  MONITOR_TICK_MS: int(10_000),
  // Test only: a file holding epoch ms that replaces the monitors' clock (check-in times and the
  // evaluator), so tests move time across restarts instead of sleeping. Never set in production.
  ERRATA_TEST_CLOCK_FILE: z.string().optional(),
  // Uptime checks: the worker looks for due checks this often (each monitor keeps its own phase
  // of its interval, so a 1 s tick spreads checks evenly). Targets on loopback, private and
  // link-local addresses are refused (checked on the connected address) unless allowed here —
  // the same outbound policy as webhooks; UPTIME_ALLOW_HOSTS lists names or CIDRs allowed anyway.
  UPTIME_TICK_MS: int(1000),
  UPTIME_ALLOW_PRIVATE: bool(false),
  UPTIME_ALLOW_HOSTS: z.string().default(""),
  // Single sign-on: requests to an organization's OpenID Connect provider (discovery, keys, token,
  // userinfo) follow the same outbound policy. An intranet provider (Keycloak, Authentik on a
  // private address) needs SSO_ALLOW_PRIVATE=true or its name or CIDR in SSO_ALLOW_HOSTS; a plain
  // http:// issuer is accepted only for such allowed private addresses.
  SSO_ALLOW_PRIVATE: bool(false),
  SSO_ALLOW_HOSTS: z.string().default(""),
  // Importing from Sentry (`errata import sentry`, the organization's import page): requests to the
  // source follow the same outbound policy. A self-hosted Sentry on a private address needs
  // IMPORT_ALLOW_PRIVATE=true or its name or CIDR in IMPORT_ALLOW_HOSTS.
  IMPORT_ALLOW_PRIVATE: bool(false),
  IMPORT_ALLOW_HOSTS: z.string().default(""),
  // Test only: the import stops (and waits to be killed) right after writing the object with this
  // progress step name, e.g. "project web", so tests can kill a run half-way. Never set in production.
  ERRATA_TEST_IMPORT_STALL: z.string().optional(),

  // Session replay (issue 40). Replays are kept this many days after their last segment, apart from
  // events: a minute of replay is 200 KB–1 MB, a hundred events' worth, so they get a shorter
  // default than events (Sentry keeps 90 days; most teams look at a replay within days of its error).
  REPLAY_RETENTION_DAYS: int(30),
  // One replay's stored (compressed) segments may grow to this many bytes; later segments are
  // refused (413). Sentry caps a replay at 60 minutes, ~60 MB at the SDK's busiest.
  REPLAY_MAX_SIZE: int(64 * MiB),
  // One recording segment: compressed as sent (Relay: 10 MiB) and inflated (the SDK stops a replay
  // whose buffer passes 20 MB; Relay allows 100 MiB). Inflation stops at the cap: a zlib bomb costs
  // nothing past it and is refused with 413.
  REPLAY_SEGMENT_MAX_SIZE: int(10 * MiB),
  REPLAY_SEGMENT_MAX_INFLATED: int(32 * MiB),
  // Replay segments per window (RATE_LIMIT_WINDOW_SECONDS) per DSN key, their own data category
  // (`replay`) apart from events; 0 = no limit. The SDK sends one segment every ~5 s per session.
  RATE_LIMIT_KEY_REPLAYS: int(0),

  // Scheduled backups (issue 43): with BACKUP_DIR set, the worker writes an `errata backup` archive
  // there every BACKUP_EVERY (30m, 12h, 24h, 7d; once per installation however many workers run)
  // and keeps the newest BACKUP_KEEP archives. Unset: no scheduled backups (`errata backup` still
  // works by hand or from cron). Each run is listed on the installation's Backups page.
  BACKUP_DIR: z.string().optional(),
  BACKUP_EVERY: z.string().default("24h"),
  BACKUP_KEEP: int(7),
});

export type Role = "web" | "ingest" | "worker";

export interface Config {
  host: string;
  port: number;
  publicUrl: string;
  /** PUBLIC_INGEST_URL, else publicUrl: the host of every DSN shown */
  publicIngestUrl: string;
  dataDir: string;
  database: { kind: "sqlite"; file: string; synchronous: "NORMAL" | "FULL" } | { kind: "postgres"; url: string };
  secret: string | undefined;
  logLevel: string;
  roles: Role[];
  limits: {
    maxCompressedBody: number;
    maxEnvelopeSize: number;
    maxEventSize: number;
    maxAttachmentSize: number;
    maxHeaderLine: number;
    bodyTimeoutMs: number;
  };
  groupCommit: { windowMs: number; maxItems: number; maxInFlight: number };
  rateLimits: { keyEvents: number; projectEvents: number; windowSeconds: number };
  backpressure: { maxQueue: number; minFreeDisk: number; checkIntervalMs: number };
  outcomes: { flushMs: number };
  worker: { batchSize: number; idlePollMs: number; leaseMs: number; nice: number; threads: number };
  auth: {
    loginMaxAttempts: number;
    loginMaxAttemptsPerAddress: number;
    loginWindowSeconds: number;
    accountLockAttempts: number;
    accountLockSeconds: number;
    /** LOGIN_BACKOFF_AFTER, LOGIN_BACKOFF_SECONDS */
    backoffAfter: number;
    backoffSeconds: number;
    sessionDays: number;
    secureCookies: boolean;
  };
  lifecycle: { ongoingAfterMs: number };
  retention: RetentionConfig;
  sourcemaps: SourcemapConfig;
  testRoutes: boolean;
  /** bearer token for /metrics; undefined: loopback clients only */
  metricsToken: string | undefined;
  /** TRUSTED_PROXIES as written (validated at load); parse with core/security/client-ip. */
  trustedProxies: string;
  smtp: SmtpConfig | null;
  alerts: AlertsConfig;
  invitationDays: number;
  passwordResetMinutes: number;
  monitors: { tickMs: number; testClockFile: string | undefined };
  uptime: { tickMs: number; allowPrivate: boolean; allowHosts: string[] };
  sso: { allowPrivate: boolean; allowHosts: string[] };
  /** the outbound policy for requests to a Sentry server being imported from */
  import: {
    allowPrivate: boolean;
    allowHosts: string[];
    testStallAfter: string | undefined;
    /** named when the outbound policy refuses a source address */
    settings: { allowPrivate: string; allowHosts: string };
  };
  replays: ReplayConfig;
  backup: BackupConfig;
}

export interface BackupConfig {
  /** BACKUP_DIR resolved; undefined: no scheduled backups */
  dir: string | undefined;
  everyMs: number;
  /** BACKUP_EVERY as written, for the page */
  every: string;
  keep: number;
}

/** "30m", "12h", "24h", "7d" → milliseconds (at least a minute). */
export function parseBackupEvery(value: string): number {
  const m = /^\s*(\d+)\s*(m|h|d)\s*$/i.exec(value);
  if (!m) throw new ConfigError(`BACKUP_EVERY: "${value}" is not a period like 30m, 12h, 24h or 7d`);
  const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[(m[2] as string).toLowerCase() as "m" | "h" | "d"];
  return Math.max(60_000, Number(m[1]) * unit);
}

export interface ReplayConfig {
  retentionDays: number;
  /** stored (compressed) bytes of one replay */
  maxReplaySize: number;
  /** one segment as sent (compressed) */
  maxSegmentSize: number;
  /** one segment inflated */
  maxSegmentInflated: number;
  /** segments per rate-limit window per key; 0 = unlimited */
  keySegmentsPerWindow: number;
}

export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  user: string | undefined;
  password: string | undefined;
  from: string;
}

export interface SourcemapConfig {
  chunkSize: number;
  chunksPerRequest: number;
  maxRequestSize: number;
  maxBundleSize: number;
  maxFileSize: number;
  /** all files of one bundle, decompressed */
  maxUnpackedSize: number;
  cacheBytes: number;
  resymbolicateDays: number;
  resymbolicateMaxEvents: number;
}

export interface RetentionConfig {
  days: number;
  eventCap: number;
  intervalMs: number;
  firstRunDelayMs: number;
  batchSize: number;
  pauseMs: number;
  /** unused artifact bundles are deleted after this many days; 0: never */
  artifactDays: number;
  /** cron check-ins and uptime results are kept this many days (or the project's retention, if shorter) */
  monitorDays: number;
  sweepIntervalMs: number;
}

export interface NextjsHold {
  pairMs: number;
  burstMs: number;
}

export interface AlertsConfig {
  allowPrivateWebhooks: boolean;
  webhookAllowHosts: string[];
  maxAttempts: number;
  timeoutMs: number;
  backoffMs: number;
  pollMs: number;
  leaseMs: number;
  /** ms a Next.js digest alert waits for its other side, and a deploy-skew alert for its burst */
  nextjsHold: NextjsHold;
}

export class ConfigError extends Error {}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new ConfigError(`Invalid configuration — ${names}`);
  }
  const e = parsed.data;
  const dataDir = path.resolve(e.DATA_DIR);
  const publicUrl = (e.PUBLIC_URL ?? `http://${e.HOST.includes(":") ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(/\/+$/, "");
  const roles = parseRoles(e.ERRATA_ROLES);
  const database = e.DATABASE_URL?.match(/^postgres(ql)?:\/\//)
    ? ({ kind: "postgres", url: e.DATABASE_URL } as const)
    : ({ kind: "sqlite", file: path.join(dataDir, "errata.db"), synchronous: e.SQLITE_SYNCHRONOUS } as const);
  return {
    host: e.HOST,
    port: e.PORT,
    publicUrl,
    publicIngestUrl: e.PUBLIC_INGEST_URL?.replace(/\/+$/, "") ?? publicUrl,
    dataDir,
    database,
    secret: e.ERRATA_SECRET,
    logLevel: e.LOG_LEVEL,
    roles,
    limits: {
      maxCompressedBody: e.MAX_COMPRESSED_BODY,
      maxEnvelopeSize: e.MAX_ENVELOPE_SIZE,
      maxEventSize: e.MAX_EVENT_SIZE,
      maxAttachmentSize: e.MAX_ATTACHMENT_SIZE,
      maxHeaderLine: e.MAX_HEADER_LINE,
      bodyTimeoutMs: e.INGEST_BODY_TIMEOUT_MS,
    },
    groupCommit: {
      windowMs: e.GROUP_COMMIT_WINDOW_MS,
      maxItems: Math.max(1, e.GROUP_COMMIT_MAX_ITEMS),
      maxInFlight: Math.max(1, e.GROUP_COMMIT_IN_FLIGHT),
    },
    rateLimits: {
      keyEvents: e.RATE_LIMIT_KEY_EVENTS,
      projectEvents: e.RATE_LIMIT_PROJECT_EVENTS,
      windowSeconds: Math.max(1, e.RATE_LIMIT_WINDOW_SECONDS),
    },
    backpressure: {
      maxQueue: e.BACKPRESSURE_MAX_QUEUE,
      minFreeDisk: e.BACKPRESSURE_MIN_FREE_DISK_MB * MiB,
      checkIntervalMs: Math.max(100, e.BACKPRESSURE_CHECK_MS),
    },
    outcomes: { flushMs: Math.max(50, e.OUTCOME_FLUSH_MS) },
    worker: {
      batchSize: Math.max(1, e.WORKER_BATCH_SIZE),
      idlePollMs: e.WORKER_IDLE_POLL_MS,
      leaseMs: e.WORKER_LEASE_MS,
      nice: Math.min(19, Math.max(0, e.WORKER_NICE)),
      threads: Math.min(16, Math.max(1, e.WORKER_THREADS)),
    },
    auth: {
      loginMaxAttempts: e.LOGIN_MAX_ATTEMPTS,
      loginMaxAttemptsPerAddress: e.LOGIN_MAX_ATTEMPTS_PER_ADDRESS,
      loginWindowSeconds: e.LOGIN_WINDOW_SECONDS,
      accountLockAttempts: e.LOGIN_ACCOUNT_LOCK_ATTEMPTS,
      accountLockSeconds: e.LOGIN_ACCOUNT_LOCK_SECONDS,
      backoffAfter: e.LOGIN_BACKOFF_AFTER,
      backoffSeconds: e.LOGIN_BACKOFF_SECONDS,
      sessionDays: e.SESSION_DAYS,
      secureCookies: e.SECURE_COOKIES || publicUrl.startsWith("https://"),
    },
    lifecycle: { ongoingAfterMs: e.ISSUE_ONGOING_AFTER_DAYS * 24 * 3600 * 1000 },
    retention: {
      days: Math.max(1, e.RETENTION_DAYS),
      eventCap: Math.max(1, e.RETENTION_EVENT_CAP),
      intervalMs: Math.max(1000, e.RETENTION_INTERVAL_MS),
      firstRunDelayMs: e.RETENTION_FIRST_RUN_DELAY_MS,
      batchSize: Math.max(1, e.RETENTION_BATCH_SIZE),
      pauseMs: e.RETENTION_PAUSE_MS,
      artifactDays: Math.max(0, e.ARTIFACT_RETENTION_DAYS),
      monitorDays: Math.max(1, e.MONITOR_HISTORY_DAYS),
      sweepIntervalMs: Math.max(1000, e.LIFECYCLE_SWEEP_INTERVAL_MS),
    },
    sourcemaps: {
      chunkSize: Math.max(1024, e.SOURCEMAP_CHUNK_SIZE),
      chunksPerRequest: Math.max(1, e.SOURCEMAP_CHUNKS_PER_REQUEST),
      maxRequestSize: Math.max(1024, e.SOURCEMAP_MAX_REQUEST_SIZE),
      maxBundleSize: e.SOURCEMAP_MAX_BUNDLE_SIZE,
      maxFileSize: e.SOURCEMAP_MAX_FILE_SIZE,
      maxUnpackedSize: Math.max(e.SOURCEMAP_MAX_FILE_SIZE, e.SOURCEMAP_MAX_UNPACKED_SIZE),
      cacheBytes: e.SOURCEMAP_CACHE_BYTES,
      resymbolicateDays: e.SOURCEMAP_RESYMBOLICATE_DAYS,
      resymbolicateMaxEvents: e.SOURCEMAP_RESYMBOLICATE_MAX_EVENTS,
    },
    testRoutes: e.ERRATA_TEST_ROUTES,
    metricsToken: e.METRICS_TOKEN,
    trustedProxies: checkTrustedProxies(e.TRUSTED_PROXIES),
    smtp: e.SMTP_HOST
      ? { host: e.SMTP_HOST, port: e.SMTP_PORT, secure: e.SMTP_SECURE, user: e.SMTP_USER, password: e.SMTP_PASSWORD, from: e.SMTP_FROM }
      : null,
    invitationDays: Math.max(1, e.INVITATION_DAYS),
    passwordResetMinutes: Math.max(5, e.PASSWORD_RESET_MINUTES),
    alerts: {
      allowPrivateWebhooks: e.ALERTS_ALLOW_PRIVATE_WEBHOOKS,
      webhookAllowHosts: e.ALERTS_WEBHOOK_ALLOW_HOSTS.split(",")
        .map((h) => h.trim())
        .filter(Boolean),
      maxAttempts: Math.max(1, e.ALERTS_MAX_ATTEMPTS),
      timeoutMs: Math.max(100, e.ALERTS_TIMEOUT_MS),
      backoffMs: e.ALERTS_BACKOFF_MS,
      pollMs: Math.max(10, e.ALERTS_POLL_MS),
      leaseMs: Math.max(1000, e.ALERTS_LEASE_MS),
      nextjsHold: { pairMs: Math.max(0, e.ALERTS_NEXTJS_PAIR_MS), burstMs: Math.max(0, e.ALERTS_NEXTJS_BURST_MS) },
    },
    monitors: { tickMs: Math.max(100, e.MONITOR_TICK_MS), testClockFile: e.ERRATA_TEST_CLOCK_FILE || undefined },
    uptime: {
      tickMs: Math.max(100, e.UPTIME_TICK_MS),
      allowPrivate: e.UPTIME_ALLOW_PRIVATE,
      allowHosts: e.UPTIME_ALLOW_HOSTS.split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    },
    sso: {
      allowPrivate: e.SSO_ALLOW_PRIVATE,
      allowHosts: e.SSO_ALLOW_HOSTS.split(",")
        .map((h) => h.trim())
        .filter(Boolean),
    },
    import: {
      testStallAfter: e.ERRATA_TEST_IMPORT_STALL || undefined,
      allowPrivate: e.IMPORT_ALLOW_PRIVATE,
      allowHosts: e.IMPORT_ALLOW_HOSTS.split(",")
        .map((h) => h.trim())
        .filter(Boolean),
      settings: { allowPrivate: "IMPORT_ALLOW_PRIVATE", allowHosts: "IMPORT_ALLOW_HOSTS" },
    },
    replays: {
      retentionDays: Math.max(1, e.REPLAY_RETENTION_DAYS),
      maxReplaySize: Math.max(1024, e.REPLAY_MAX_SIZE),
      maxSegmentSize: Math.max(1024, e.REPLAY_SEGMENT_MAX_SIZE),
      maxSegmentInflated: Math.max(1024, e.REPLAY_SEGMENT_MAX_INFLATED),
      keySegmentsPerWindow: e.RATE_LIMIT_KEY_REPLAYS,
    },
    backup: {
      dir: e.BACKUP_DIR ? path.resolve(e.BACKUP_DIR) : undefined,
      everyMs: parseBackupEvery(e.BACKUP_EVERY),
      every: e.BACKUP_EVERY,
      keep: Math.max(1, e.BACKUP_KEEP),
    },
  };
}

function checkTrustedProxies(value: string): string {
  const parsed = parseTrustedProxies(value);
  if (!parsed.ok) throw new ConfigError(`TRUSTED_PROXIES: "${parsed.bad}" is not an IP address or CIDR range`);
  return value;
}

export function parseRoles(value: string): Role[] {
  const roles = value
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of roles) {
    if (r !== "web" && r !== "ingest" && r !== "worker") throw new ConfigError(`Unknown role "${r}" (expected web, ingest, worker)`);
  }
  if (roles.length === 0) throw new ConfigError("At least one role is required");
  return roles as Role[];
}

/** Test and bench processes may tune these; kept here so nothing else touches process.env. */
export function envFlag(name: string): string | undefined {
  return process.env[name];
}
