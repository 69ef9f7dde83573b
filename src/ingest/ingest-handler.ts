/**
 * The ingest fast path (ARCHITECTURE "Process model", principle 3): served by our own handler on
 * the plain node:http server, before anything reaches Next.js.
 *
 * Routes:
 *   POST /api/{id}/envelope/ and /store/        events and everything modern SDKs send
 *   POST /api/{id}/security/ and /csp-report/   browser CSP reports (auth: ?sentry_key=)
 *   GET|POST /api/embed/error-page/             the crash-report dialog (src/ingest/error-page.ts)
 *
 * Path of an event through this file:
 *   route → DSN auth from the request (header/query; cached key) → installation backpressure →
 *   body streamed under limits and decompressed → envelope parsed (structure, item sizes, event
 *   id; unsupported item types cut out) → envelope-header `dsn` reconciled (tunnels) → per-key /
 *   per-project rate limit → row added to the group committer → 200 {"id": …} once its
 *   transaction committed.
 * Nothing is normalised or grouped here; the digest worker does that from the queue. Every
 * response carries the CORS headers; errors use the catalogue ({detail, code} + X-Sentry-Error).
 * Outcomes: what ingest refuses or cuts out is counted here (ingest-outcomes.ts); what it queues
 * is counted by the worker, so every item gets exactly one.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Config } from "../config";
import { parseDsn } from "../core/dsn";
import { AppError, ERROR_CATALOGUE, isAppError } from "../core/errors";
import { parseCheckIn } from "../core/monitors/checkin";
import { itemCategory, type OutcomeCount, outcomeOfError, REASONS } from "../core/outcomes";
import { clientIp, type TrustedProxies } from "../core/security/client-ip";
import type { Logger } from "../log";
import { ingestRequests, queueDepthGauge } from "../metrics";
import type { Db } from "../storage/db";
import { createKeyCache } from "../storage/orgs/key-cache";
import type { IngestKey } from "../storage/orgs/projects";
import { enqueueMany, type QueueInsert, queueDepth, queueDepthEstimate } from "../storage/queue/queue";
import { queueWriterFor } from "../storage/queue/writer";
import { isStorageUnavailable, retryOnLostConnection, STORAGE_RETRY_AFTER_SECS, storageHealth } from "../storage/storage-health";
import { acceptEnvelope, acceptStore, newEventId } from "./accept";
import { requestKey, resolveEnvelopeAuth } from "./compat/auth";
import { preflightHeaders } from "./compat/cors";
import { cronCheckInPayload } from "./compat/cron-checkin";
import { checkFeedbackForm, dialogOptions, PAGE_CSP, parseFormBody, renderDialogPage, renderDialogScript } from "./error-page";
import { createGroupCommitter } from "./group-commit";
import { createIngestOutcomes } from "./ingest-outcomes";
import { type EnvelopeLimits, normalizeEventId } from "./parse-envelope";
import {
  createBackpressure,
  createRateLimiter,
  formatRateLimits,
  freeDiskBytes,
  notKeptHeaders,
  type RateLimitVerdict,
  REPLAYS_OFF_LIMIT,
} from "./rate-limit";
import {
  type BodyLimits,
  ClientGoneError,
  checkContentLength,
  discardBody,
  MemoryBudget,
  parseContentEncoding,
  readBody,
} from "./read-body";
import { createReplayGate, REPLAY_TYPES, type ReplayCheck } from "./replay-check";
import { sendAccepted, sendBody, sendError, sendOk } from "./respond";
import { parseSecurityBody } from "./security";

export interface IngestHandlerDeps {
  config: Config;
  db: Db;
  log: Logger;
  /** Clock (epoch ms) for `receivedAt`, rate-limit windows and outcome hours; tests pin it. */
  now?: () => number;
  /**
   * TRUSTED_PROXIES, parsed: behind one of them (the documented split deployment's proxy) the
   * client IP is the nearest untrusted `X-Forwarded-For` hop, as the web role reads it. Without
   * it the socket's address: the header is client-controlled unless a trusted proxy sets it.
   */
  trustedProxies?: TrustedProxies;
  /**
   * Durable write of one batch and the outcome counts riding along; defaults to
   * `enqueueMany(db, rows, outcomes)`. Tests inject failures.
   */
  enqueue?: (rows: QueueInsert[], outcomes: OutcomeCount[]) => Promise<void>;
  /** Called after each successful commit of queue rows (start.ts wakes the digest worker). */
  onCommit?: () => void;
}

export interface IngestHandler {
  /** Serves ingest routes and returns true; returns false (touching nothing) for any other path. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Measures queue depth and free disk now instead of at the next tick (tests). */
  refreshBackpressure(): Promise<void>;
  /** Commits what is pending and stops accepting. */
  close(): Promise<void>;
}

type Endpoint = "envelope" | "store" | "security" | "embed" | "cron";

// `\d+` like Relay; the id is range-checked after matching. Trailing slash optional.
const ROUTE_RE = /^\/api\/(\d+)\/(envelope|store|security|csp-report)\/?$/;
const EMBED_RE = /^\/api\/embed\/error-page\/?$/;
// Sentry's HTTP check-in endpoint: /api/{project_id}/cron/{monitor_slug}/{sentry_key}/
const CRON_RE = /^\/api\/(\d+)\/cron\/([^/]{1,200})\/([0-9a-fA-F]{1,64})\/?$/;
const MAX_SECURITY_BODY = 256 * 1024;

/** The paths the ingest role answers (envelope, store, security reports, HTTP check-ins, the crash-report dialog). */
export function isIngestPath(url: string): boolean {
  if (!url.startsWith("/api/")) return false;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  return ROUTE_RE.test(path) || CRON_RE.test(path) || EMBED_RE.test(path);
}
const MAX_FORM_BODY = 32 * 1024;

/** What a request has established so far; the error path uses it to record the right outcome. */
interface RequestState {
  endpoint: Endpoint;
  projectId: number;
  /** -1 until a DSN key is authenticated (unauthenticated failures are not attributed) */
  keyId: number;
  /** the project's own per-minute limit, once the key is known */
  projectPerMinute?: number | null;
  /** the project stores replays (false: its replay items are cut out), once the key is known */
  replaysEnabled?: boolean;
  /** data categories of the items at stake (one `default` item when unknown) */
  categories: string[] | undefined;
  /** outcomes already recorded (success, or counted where decided) */
  counted: boolean;
  rateLimit?: RateLimitVerdict;
}

function noop(): void {}

const NO_TRUSTED_PROXIES: TrustedProxies = { check: () => false, size: 0 };

export function createIngestHandler(deps: IngestHandlerDeps): IngestHandler {
  const { config, db } = deps;
  // The CLI already passes a child bound to mod=ingest; don't bind the key twice.
  const log = deps.log.bindings().mod === undefined ? deps.log.child({ mod: "ingest" }) : deps.log;
  const now = deps.now ?? Date.now;
  const trustedProxies = deps.trustedProxies ?? NO_TRUSTED_PROXIES;
  const limits = config.limits;

  // All bodies being read share this: room for two of the largest envelopes, at least 256 MiB.
  const budget = new MemoryBudget(Math.max(256 * 1024 * 1024, 2 * limits.maxEnvelopeSize));
  // Prepared once: limit objects handed to the reader and parser on every request.
  const envelopeLimits: EnvelopeLimits = {
    maxHeaderLine: limits.maxHeaderLine,
    maxEventSize: limits.maxEventSize,
    maxAttachmentSize: limits.maxAttachmentSize,
  };
  const envelopeBody: BodyLimits = {
    maxCompressed: limits.maxCompressedBody,
    maxDecompressed: limits.maxEnvelopeSize,
    timeoutMs: limits.bodyTimeoutMs,
    budget,
  };
  // A /store/ body is one event, possibly base64 (4/3 larger); the decoded event is checked
  // against maxEventSize in acceptStore.
  const storeBody: BodyLimits = {
    maxCompressed: limits.maxCompressedBody,
    maxDecompressed: Math.min(limits.maxEnvelopeSize, Math.ceil(limits.maxEventSize * 1.4) + 1024),
    timeoutMs: limits.bodyTimeoutMs,
    budget,
  };
  const securityBody: BodyLimits = {
    maxCompressed: Math.min(limits.maxCompressedBody, MAX_SECURITY_BODY),
    maxDecompressed: Math.min(limits.maxEventSize, MAX_SECURITY_BODY),
    timeoutMs: limits.bodyTimeoutMs,
  };
  const formBody: BodyLimits = { maxCompressed: MAX_FORM_BODY, maxDecompressed: MAX_FORM_BODY, timeoutMs: limits.bodyTimeoutMs };

  const keys = createKeyCache(db);
  const health = storageHealth(db);
  // SQLite: commits happen on a writer thread (storage/queue/writer.ts), never blocking this loop.
  const writer = deps.enqueue ? undefined : queueWriterFor(db);
  const write =
    deps.enqueue ??
    (writer
      ? (rows: QueueInsert[], outcomes: OutcomeCount[]) => writer.write(rows, outcomes)
      : // PostgreSQL: a terminated backend is replaced by the pool; the write is retried, not 503'd.
        (rows: QueueInsert[], outcomes: OutcomeCount[]) => retryOnLostConnection(() => enqueueMany(db, rows, outcomes)));
  const outcomes = createIngestOutcomes((counts) => write([], counts), config.outcomes.flushMs);
  const committer = createGroupCommitter(async (rows) => {
    // Outcome counts ride along where rows and counts share one file and one commit (PostgreSQL,
    // tests); the SQLite writer keeps the queue in a file of its own, and a count waiting for the
    // main file's lock must not hold back the rows' 200s: there the timer writes them.
    const counts = writer ? [] : outcomes.take();
    try {
      await write(rows, counts);
    } catch (err) {
      outcomes.restore(counts);
      // A locked or unwritable database is a state, logged when it starts and ends (storage-health).
      if (isStorageUnavailable(err)) health.failed(err, log);
      // Otherwise logged once per batch; each request of the batch answers 503.
      else log.error({ rows: rows.length, err: errSummary(err) }, "queue write failed");
      throw err;
    }
    if (rows.length > 0) health.succeeded(log);
    outcomes.committed(counts);
    deps.onCommit?.();
  }, config.groupCommit);
  const limiter = createRateLimiter({ ...config.rateLimits, keyReplays: config.replays.keySegmentsPerWindow });
  const replays = createReplayGate(db, config.replays);
  const backpressure = createBackpressure(
    config.backpressure,
    {
      queueEstimate: () => queueDepthEstimate(db),
      queueExact: () => queueDepth(db),
      freeDisk: () => (db.dialect === "sqlite" ? freeDiskBytes(config.dataDir) : Promise.resolve(undefined)),
    },
    (depth) => queueDepthGauge.set(depth),
  );

  let requestSeq = 0;
  const reqIdPrefix = `${process.pid.toString(36)}-${Date.now().toString(36)}-`;

  // ---------------------------------------------------------------------------------------------
  // /api/{id}/envelope/ and /store/

  async function serveEvents(
    req: IncomingMessage,
    res: ServerResponse,
    st: RequestState,
    kind: "envelope" | "store",
    query: string,
  ): Promise<void> {
    const projectId = st.projectId;
    if (preflight(req, res)) return;
    if (req.method !== "POST") throw new AppError("method_not_allowed", `Use POST to send events to /api/${projectId}/${kind}/.`);
    if (!Number.isSafeInteger(projectId)) throw new AppError("unknown_project");

    const h = req.headers;
    const reqKey = requestKey(header(req, "x-sentry-auth"), h.authorization, query);
    // /store/ with an envelope content type is an envelope (reference §2.3).
    const isEnvelope = kind === "envelope" || isEnvelopeContentType(h["content-type"]);
    // Only envelopes can authenticate themselves (header `dsn`); no carrier at all → 401 now.
    if (reqKey === undefined && !isEnvelope) throw new AppError("missing_auth");
    if (reqKey !== undefined) await authenticate(st, reqKey);

    const encoding = parseContentEncoding(header(req, "content-encoding"));
    checkContentLength(header(req, "content-length"), limits.maxCompressedBody);
    const raw = await readBody(req, encoding, isEnvelope ? envelopeBody : storeBody);

    let body: Buffer;
    let eventId: string | undefined;
    let extraHeaders: readonly string[] = [];
    let replay: ReplayCheck | undefined;
    if (isEnvelope) {
      let env = acceptEnvelope(raw, envelopeLimits, st.replaysEnabled === false ? REPLAY_TYPES : undefined);
      st.categories = categoriesOf(env.kept);
      // Always reconciled: a tunnel's header dsn must agree with the request's key (header mismatch).
      const authKey = resolveEnvelopeAuth(reqKey, env.dsn, projectId);
      if (st.keyId === -1) await authenticate(st, authKey);
      // Authenticated by the envelope's own dsn: only now is the project's replay setting known.
      if (st.replaysEnabled === false && env.kept.some((t) => REPLAY_TYPES.has(t))) {
        env = acceptEnvelope(raw, envelopeLimits, REPLAY_TYPES);
        st.categories = categoriesOf(env.kept);
      }
      // Headers only: legal and empty; nothing to store.
      if (env.empty) return succeed(res, st, env.eventId);
      // Cut-out items are filtered whatever happens to the rest (rate limit, failed commit).
      for (const type of env.unsupported)
        outcomes.add(st.projectId, st.keyId, now(), itemCategory(type), "filtered", REASONS.unsupportedItem);
      if (env.dropped.length > 0) outcomes.add(st.projectId, st.keyId, now(), "replay", "filtered", REASONS.replaysDisabled);
      if (env.kept.some((t) => REPLAY_TYPES.has(t))) {
        takeReplayLimit(st);
        replay = await replays.check(st.projectId, env.items, env.eventId);
      }
      if (env.rateLimited) takeRateLimit(st);
      const notKept = rateLimitHeaders(env.unsupported, env.dropped.length > 0);
      // Only types Errata does not store (a profile…) or the project turned off: 200, nothing to queue.
      if (env.kept.length === 0) return succeed(res, st, env.eventId, 200, notKept);
      body = env.body;
      eventId = env.eventId;
      extraHeaders = notKept;
    } else {
      st.categories = ["error"];
      const ev = acceptStore(raw, limits.maxEventSize);
      takeRateLimit(st);
      body = ev.body;
      eventId = ev.eventId;
    }
    await commit(st, req, isEnvelope ? "envelope" : "store", body);
    if (replay) replays.accepted(st.projectId, replay);
    succeed(res, st, eventId, 200, extraHeaders);
  }

  // ---------------------------------------------------------------------------------------------
  // /api/{id}/security/ (and /csp-report/): each CSP report is queued as a `raw_security` item

  async function serveSecurity(req: IncomingMessage, res: ServerResponse, st: RequestState, query: string): Promise<void> {
    if (preflight(req, res)) return;
    if (req.method !== "POST") throw new AppError("method_not_allowed", `Use POST to send reports to /api/${st.projectId}/security/.`);
    if (!Number.isSafeInteger(st.projectId)) throw new AppError("unknown_project");
    const reqKey = requestKey(header(req, "x-sentry-auth"), req.headers.authorization, query);
    if (reqKey === undefined) throw new AppError("missing_auth", "Security reports authenticate with ?sentry_key= in the report URI.");
    await authenticate(st, reqKey);
    const encoding = parseContentEncoding(header(req, "content-encoding"));
    checkContentLength(header(req, "content-length"), securityBody.maxCompressed);
    const { reports, ignored } = parseSecurityBody(await readBody(req, encoding, securityBody));
    if (ignored > 0) outcomes.add(st.projectId, st.keyId, now(), "security", "filtered", REASONS.unsupportedItem, ignored);
    if (reports.length === 0) return succeed(res, st, undefined, 201);
    st.categories = reports.map(() => "security");
    takeRateLimit(st);
    const params = new URLSearchParams(query);
    const itemHeader: Record<string, string> = { type: "raw_security" };
    const release = params.get("sentry_release");
    const environment = params.get("sentry_environment");
    if (release) itemHeader.sentry_release = release.slice(0, 200);
    if (environment) itemHeader.sentry_environment = environment.slice(0, 64);
    const headerLine = JSON.stringify(itemHeader);
    await Promise.all(
      reports.map((r) => commit(st, req, "envelope", Buffer.from(`{"event_id":"${newEventId()}"}\n${headerLine}\n${JSON.stringify(r)}`))),
    );
    succeed(res, st, undefined, 201);
  }

  // ---------------------------------------------------------------------------------------------
  // /api/{id}/cron/{slug}/{key}/: check-ins from curl and shell jobs, queued as a `check_in` item

  async function serveCron(req: IncomingMessage, res: ServerResponse, st: RequestState, slug: string, key: string, query: string) {
    if (preflight(req, res)) return;
    if (req.method !== "GET" && req.method !== "POST")
      throw new AppError("method_not_allowed", `Use GET or POST to send check-ins to /api/${st.projectId}/cron/<monitor_slug>/<key>/.`);
    if (!Number.isSafeInteger(st.projectId)) throw new AppError("unknown_project");
    st.categories = ["monitor"];
    await authenticate(st, key);
    let body: Record<string, unknown> = {};
    if (req.method === "POST") {
      const raw = await readBody(req, parseContentEncoding(header(req, "content-encoding")), formBody);
      if (raw.length > 0) body = jsonObject(raw);
    }
    const payload = cronCheckInPayload(safeDecode(slug), new URLSearchParams(query), body);
    const parsed = parseCheckIn(payload);
    if (!parsed.ok) throw new AppError("invalid_check_in", `The check-in is malformed: ${parsed.reason.replaceAll("_", " ")}.`);
    takeRateLimit(st);
    await commit(st, req, "envelope", Buffer.from(`{}\n{"type":"check_in"}\n${JSON.stringify(payload)}`));
    // Sentry answers 202 with no body.
    st.counted = true;
    countRequest(st, "ok");
    sendAccepted(res);
  }

  /** A POSTed check-in: one JSON object, else the catalogued invalid_check_in. */
  function jsonObject(raw: Buffer): Record<string, unknown> {
    let v: unknown;
    try {
      v = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new AppError("invalid_check_in", "The check-in body is not JSON.");
    }
    if (typeof v !== "object" || v === null || Array.isArray(v))
      throw new AppError("invalid_check_in", "The check-in body must be a JSON object.");
    return v as Record<string, unknown>;
  }

  function safeDecode(s: string): string {
    try {
      return decodeURIComponent(s);
    } catch {
      throw new AppError("invalid_check_in", "The monitor slug in the URL is not valid percent-encoding.");
    }
  }

  // ---------------------------------------------------------------------------------------------
  // /api/embed/error-page/: the crash-report dialog

  async function serveEmbed(req: IncomingMessage, res: ServerResponse, st: RequestState, query: string): Promise<void> {
    if (preflight(req, res)) return;
    const method = req.method;
    if (method !== "GET" && method !== "POST") throw new AppError("method_not_allowed", "Use GET for the dialog and POST to submit it.");
    const params = new URLSearchParams(query);
    const wantsHtml = prefersHtml(req);
    const eventId = normalizeEventId(params.get("eventId") ?? "");
    const dsn = parseDsn(params.get("dsn") ?? "");
    if (!dsn || eventId === undefined) {
      const detail = !dsn ? "Missing or invalid parameter: dsn." : "Missing or invalid parameter: eventId.";
      if (wantsHtml) return sendPage(res, st, 400, renderDialogPage(undefined, { problem: detail }));
      throw new AppError("validation_failed", detail);
    }
    st.projectId = Number(dsn.projectId);
    st.categories = ["user_report_v2"];
    await authenticate(st, dsn.publicKey);
    const opts = dialogOptions(params, eventId);
    if (method === "GET") {
      if (wantsHtml) return sendPage(res, st, 200, renderDialogPage(opts));
      st.counted = true;
      countRequest(st, "ok");
      const self = `${config.publicUrl}/api/embed/error-page/?${new URLSearchParams({ dsn: params.get("dsn") ?? "", eventId }).toString()}`;
      sendBody(res, 200, "application/javascript; charset=utf-8", renderDialogScript(opts, self), [
        "Cache-Control",
        "no-store",
        "X-Content-Type-Options",
        "nosniff",
      ]);
      return;
    }
    const fields = parseFormBody(await readBody(req, "identity", formBody), header(req, "content-type"));
    const form = checkFeedbackForm(fields);
    if (!form.ok) {
      if (wantsHtml) return sendPage(res, st, 400, renderDialogPage(opts, { values: stringFields(fields), errors: form.errors }));
      throw Object.assign(new AppError("validation_failed", opts.errorFormEntry), { formErrors: form.errors });
    }
    const report = { event_id: eventId, ...form.value };
    const body = Buffer.from(
      `{"event_id":"${eventId}"}\n{"type":"user_report","errata_source":"crash_report_dialog"}\n${JSON.stringify(report)}`,
    );
    await commit(st, req, "envelope", body);
    if (wantsHtml) return sendPage(res, st, 200, renderDialogPage(opts, { done: true }));
    succeed(res, st, undefined);
  }

  function sendPage(res: ServerResponse, st: RequestState, status: number, html: string): void {
    st.counted = true;
    countRequest(st, status < 400 ? "ok" : "validation_failed");
    sendBody(res, status, "text/html; charset=utf-8", html, [
      "Cache-Control",
      "no-store",
      "Content-Security-Policy",
      PAGE_CSP,
      "X-Content-Type-Options",
      "nosniff",
    ]);
  }

  // ---------------------------------------------------------------------------------------------
  // shared steps

  /** Key → state.keyId, or the catalogue error. A cache hit costs no await on the database. */
  async function authenticate(st: RequestState, publicKey: string): Promise<IngestKey> {
    let key = keys.peek(publicKey);
    if (key === undefined) key = await keys.get(publicKey);
    if (!key) throw new AppError("invalid_dsn");
    // An imported key (issue 32) is also accepted on the project id its old DSN carries; from here
    // on the request belongs to the key's project, whichever id the URL said.
    if (key.dsnProjectId !== null && key.dsnProjectId === st.projectId) st.projectId = key.projectId;
    if (key.projectId !== st.projectId) {
      // Only the error path asks whether the project exists, to tell a typo'd DSN from a wrong key.
      if (!(await keys.projectExists(st.projectId))) throw new AppError("unknown_project");
      throw new AppError("invalid_dsn");
    }
    st.keyId = key.keyId;
    st.projectPerMinute = key.projectEventsPerMinute;
    st.replaysEnabled = key.replaysEnabled;
    if (!key.active) throw new AppError("project_disabled");
    const pressure = backpressure.check();
    if (pressure) {
      st.rateLimit = pressure;
      throw new AppError("rate_limited", "Errata is not accepting events right now (backpressure); retry later.");
    }
    return key;
  }

  function takeRateLimit(st: RequestState): void {
    const verdict = limiter.take(st.keyId, st.projectId, now(), st.projectPerMinute);
    if (!verdict) return;
    st.rateLimit = verdict;
    throw new AppError("rate_limited", `Rate limit of this ${verdict.scope} reached; retry in ${verdict.retryAfter} s.`);
  }

  /** Replay segments count against the key's replay limit (their own category), never the events'. */
  function takeReplayLimit(st: RequestState): void {
    const verdict = limiter.takeReplay(st.keyId, now());
    if (!verdict) return;
    st.rateLimit = verdict;
    throw new AppError("rate_limited", `Replay rate limit of this key reached; retry in ${verdict.retryAfter} s.`);
  }

  async function commit(st: RequestState, req: IncomingMessage, kind: "envelope" | "store", body: Buffer): Promise<void> {
    // While the database refuses writes, answer at once (no request waits out the lock timeout);
    // a probe, or one request a second, finds out when it is back.
    if (!health.ok && !(await health.check(log)) && !health.tryOneWrite()) throw new AppError("storage_unavailable");
    try {
      await committer.add({
        projectId: st.projectId,
        keyId: st.keyId,
        receivedAt: now(),
        clientIp: clientIpOf(req, trustedProxies),
        kind,
        body,
      });
    } catch (err) {
      throw new AppError(isStorageUnavailable(err) ? "storage_unavailable" : "overloaded");
    }
  }

  /** Answers 2xx: from here on the queued items' outcomes are the worker's to record. */
  function succeed(res: ServerResponse, st: RequestState, eventId: string | undefined, status = 200, extra: readonly string[] = []): void {
    st.counted = true;
    countRequest(st, "ok");
    sendOk(res, eventId, status, extra);
  }

  function countRequest(st: RequestState, code: string): void {
    ingestRequests.inc({ endpoint: st.endpoint, code });
  }

  /** The outcome of the items of a refused request, when its key is known. */
  function countRefusal(st: RequestState, err: AppError): void {
    if (st.counted || st.keyId < 0) return;
    st.counted = true;
    const outcome = outcomeOfError(err.code);
    if (!outcome) return;
    const reason = st.rateLimit?.reason ?? err.code;
    const at = now();
    for (const category of st.categories ?? ["default"]) outcomes.add(st.projectId, st.keyId, at, category, outcome, reason);
  }

  function fail(req: IncomingMessage, res: ServerResponse, st: RequestState, err: unknown): void {
    if (err instanceof ClientGoneError) {
      // Nobody to answer; the socket is already gone or going.
      countRequest(st, "client_gone");
      res.destroy();
      return;
    }
    if (isAppError(err)) {
      countRefusal(st, err);
      countRequest(st, err.code);
    }
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    if (isAppError(err)) {
      const close = err.code === "request_timeout";
      const formErrors = (err as { formErrors?: Record<string, string> }).formErrors;
      const retryAfter = err.code === "storage_unavailable" ? STORAGE_RETRY_AFTER_SECS : undefined;
      sendError(res, err.code, err.message, {
        close,
        rateLimit: st.rateLimit,
        retryAfter,
        body: formErrors ? { errors: formErrors } : undefined,
      });
      if (close) {
        res.once("finish", () => req.socket.destroy());
        return;
      }
      // Answered before the body was read: drain it (bounded) so the client can read the answer.
      if (req.listenerCount("data") === 0) discardBody(req, limits.maxCompressedBody);
      return;
    }
    if (isStorageUnavailable(err)) {
      // The database, not the request: a catalogued 503 the SDK retries, logged once per state change.
      health.failed(err, log);
      fail(req, res, st, new AppError("storage_unavailable"));
      return;
    }
    countRequest(st, "internal_error");
    const requestId = reqIdPrefix + (++requestSeq).toString(36);
    log.error({ requestId, url: req.url?.split("?")[0], err: errSummary(err) }, "ingest request failed");
    sendError(res, "internal_error", ERROR_CATALOGUE.internal_error.message, { requestId });
    if (req.listenerCount("data") === 0) discardBody(req, limits.maxCompressedBody);
  }

  /** Never rejects: every failure becomes an answer (or a closed socket). */
  async function serveSafely(req: IncomingMessage, res: ServerResponse, st: RequestState, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (err) {
      try {
        fail(req, res, st, err);
      } catch (inner) {
        log.error({ err: errSummary(inner) }, "ingest error path failed");
        res.destroy();
      }
    }
  }

  return {
    handle(req: IncomingMessage, res: ServerResponse): boolean {
      const url = req.url;
      if (url === undefined || !url.startsWith("/api/")) return false;
      const q = url.indexOf("?");
      const path = q === -1 ? url : url.slice(0, q);
      const query = q === -1 ? "" : url.slice(q + 1);
      const m = ROUTE_RE.exec(path);
      let st: RequestState;
      let run: () => Promise<void>;
      if (m) {
        const kind = m[2] as "envelope" | "store" | "security" | "csp-report";
        const endpoint: Endpoint = kind === "csp-report" ? "security" : kind;
        st = { endpoint, projectId: Number(m[1]), keyId: -1, categories: undefined, counted: false };
        const state = st;
        run =
          endpoint === "security"
            ? () => serveSecurity(req, res, state, query)
            : () => serveEvents(req, res, state, endpoint as "envelope" | "store", query);
      } else if (CRON_RE.test(path)) {
        const c = CRON_RE.exec(path) as RegExpExecArray;
        st = { endpoint: "cron", projectId: Number(c[1]), keyId: -1, categories: undefined, counted: false };
        const state = st;
        run = () => serveCron(req, res, state, c[2] as string, c[3] as string, query);
      } else if (EMBED_RE.test(path)) {
        st = { endpoint: "embed", projectId: -1, keyId: -1, categories: undefined, counted: false };
        const state = st;
        run = () => serveEmbed(req, res, state, query);
      } else return false;
      // Socket-level errors after we answered must not become uncaught exceptions.
      res.on("error", noop);
      void serveSafely(req, res, st, run);
      return true;
    },
    refreshBackpressure: () => backpressure.refresh(),
    async close(): Promise<void> {
      backpressure.close();
      await committer.close();
      await outcomes.close();
      await writer?.close();
      keys.close();
    },
  };
}

/**
 * Data categories of an envelope's items, for outcomes: a replay's `replay_event` and
 * `replay_recording` travel together and count as one `replay`, as Sentry counts them.
 */
function categoriesOf(kept: readonly string[]): string[] {
  const out: string[] = [];
  let replay = false;
  for (const t of kept) {
    if (REPLAY_TYPES.has(t)) {
      if (!replay) out.push("replay");
      replay = true;
    } else out.push(itemCategory(t));
  }
  return out;
}

/** `X-Sentry-Rate-Limits` for cut-out items: types never kept, and replays a project turned off. */
function rateLimitHeaders(unsupported: readonly string[], replaysOff: boolean): readonly string[] {
  const notKept = notKeptHeaders(unsupported);
  if (!replaysOff) return notKept;
  const off = formatRateLimits(REPLAYS_OFF_LIMIT);
  return ["X-Sentry-Rate-Limits", notKept.length > 0 ? `${notKept[1]}, ${off}` : off];
}

/** OPTIONS on an ingest path: the CORS preflight (browsers with custom transport headers). */
function preflight(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "OPTIONS") return false;
  res.writeHead(200, preflightHeaders(header(req, "access-control-request-headers")));
  res.end();
  return true;
}

/** A browser navigating (or posting a plain form) wants the HTML page rather than the script / JSON. */
function prefersHtml(req: IncomingMessage): boolean {
  const dest = header(req, "sec-fetch-dest");
  if (dest !== undefined) return dest === "document" || dest === "iframe";
  return (header(req, "accept") ?? "").toLowerCase().startsWith("text/html");
}

function stringFields(fields: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["name", "email", "comments"]) if (typeof fields[k] === "string") out[k] = (fields[k] as string).slice(0, 10_000);
  return out;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return typeof v === "string" ? v : Array.isArray(v) ? v[0] : undefined;
}

function isEnvelopeContentType(value: string | undefined): boolean {
  return value?.toLowerCase().startsWith("application/x-sentry-envelope") === true;
}

function clientIpOf(req: IncomingMessage, trusted: TrustedProxies): string | null {
  const ip = clientIp(req.socket.remoteAddress, header(req, "x-forwarded-for"), trusted);
  return ip === "unknown" ? null : ip;
}

function errSummary(err: unknown): { message: string; stack?: string } {
  if (err instanceof Error) return { message: err.message, stack: err.stack };
  return { message: String(err) };
}
