/**
 * Whether the database takes writes, shared by everyone holding the same `Db` (ingest, REST,
 * /readyz): a SQLite file locked by another process or not writable, or a PostgreSQL server that
 * refuses connections, is a state — answered `storage_unavailable` (503 + Retry-After) and logged
 * once when it starts and once when it ends, never once per request.
 */
import { sql } from "kysely";
import type { Db } from "./db";

/** What ingest and REST tell clients to wait before retrying (s). */
export const STORAGE_RETRY_AFTER_SECS = 5;

/** A probe result is reused this long: /readyz and refused requests never hammer the database. */
const PROBE_EVERY_MS = 1000;

/** How long the SQLite probe waits for another writer's lock: the digest's transactions are short. */
const PROBE_BUSY_MS = 250;

const SQLITE_CODES = /^SQLITE_(BUSY|LOCKED|READONLY|CANTOPEN|IOERR|FULL|PERM|PROTOCOL|NOTADB|CORRUPT)/;
/** pg: connection refused/reset, server shutting down, too many connections, connection failures. */
const PG_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
]);

/** True for errors meaning "the database cannot take this write now", not a bug in the request. */
export function isStorageUnavailable(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (SQLITE_CODES.test(code) || PG_CODES.has(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && /Connection terminated|database is locked|readonly database/i.test(message);
}

interface Logger {
  error(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface StorageHealth {
  /** false from a write failing for storage reasons until one succeeds (or a probe passes) */
  readonly ok: boolean;
  /** While not ok for a reason the probe cannot see end (full disk…): true at most once a second, for one real write. */
  tryOneWrite(): boolean;
  failed(err: unknown, log: Logger): void;
  succeeded(log: Logger): void;
  /** Probes the database's writability (at most once a second) and returns the state. */
  check(log: Logger): Promise<boolean>;
}

const trackers = new WeakMap<Db, StorageHealth>();

/** The tracker of this database handle (one per process and handle). */
export function storageHealth(db: Db): StorageHealth {
  let t = trackers.get(db);
  if (!t) {
    t = createStorageHealth(db);
    trackers.set(db, t);
  }
  return t;
}

function createStorageHealth(db: Db): StorageHealth {
  let ok = true;
  /** a lock or lost connection: the probe sees its end; a full disk or read-only file it may not */
  let probeClears = true;
  let lastProbe = 0;
  let lastTry = 0;
  let probing: Promise<boolean> | undefined;
  const health: StorageHealth = {
    get ok() {
      return ok;
    },
    failed(err, log) {
      if (!ok) return;
      ok = false;
      const code = String((err as { code?: unknown })?.code ?? "");
      probeClears = /^SQLITE_(BUSY|LOCKED)/.test(code) || PG_CODES.has(code);
      log.error(
        { code: (err as { code?: unknown })?.code, message: String((err as Error)?.message ?? err).slice(0, 200) },
        "storage unavailable: writes are refused with 503 until it recovers",
      );
    },
    succeeded(log) {
      if (ok) return;
      ok = true;
      log.warn({}, "storage available again");
    },
    tryOneWrite() {
      // A lock's end is seen by the probe: no request needs to wait out the writer's lock timeout.
      if (ok || probeClears || Date.now() - lastTry < PROBE_EVERY_MS) return ok;
      lastTry = Date.now();
      return true;
    },
    check(log) {
      if (Date.now() - lastProbe < PROBE_EVERY_MS || (!ok && !probeClears)) return Promise.resolve(ok);
      probing ??= probeWritable(db)
        .then(
          () => health.succeeded(log),
          (err: unknown) => {
            if (isStorageUnavailable(err)) health.failed(err, log);
          },
        )
        .then(() => {
          lastProbe = Date.now();
          probing = undefined;
          return ok;
        });
      return probing;
    },
  };
  return health;
}

/**
 * Throws when a write could not start now. SQLite: takes and releases the write lock (BEGIN
 * IMMEDIATE; nothing is written), waiting at most PROBE_BUSY_MS; PostgreSQL: a round trip.
 */
async function probeWritable(db: Db): Promise<void> {
  const sqlite = db.sqlite;
  if (!sqlite) {
    // A dead idle client in the pool is not the server being down: try a fresh one.
    await retryOnLostConnection(() => sql`select 1`.execute(db.kysely));
    return;
  }
  // A write needs the file writable, which BEGIN IMMEDIATE does not check on its own.
  if (sqlite.readonly) throw Object.assign(new Error("the database is open read-only"), { code: "SQLITE_READONLY" });
  // Our own connection is mid-transaction (an awaited REST write): it is writing, leave it be.
  if (sqlite.inTransaction) return;
  // No busy wait on this (the main) thread: try without waiting, retry on timers.
  const deadline = Date.now() + PROBE_BUSY_MS;
  for (;;) {
    const busy = sqlite.pragma("busy_timeout", { simple: true }) as number;
    sqlite.pragma("busy_timeout = 0");
    try {
      sqlite.exec("BEGIN IMMEDIATE");
      sqlite.exec("ROLLBACK");
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw err;
    } finally {
      sqlite.pragma(`busy_timeout = ${busy}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** pg errors of a connection that died under the query (terminated backend, failover, proxy). */
const LOST_CONNECTION_CODES = new Set(["57P01", "57P02", "ECONNRESET", "EPIPE"]);

function isLostConnection(err: unknown): boolean {
  if (!err || typeof err !== "object") return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && LOST_CONNECTION_CODES.has(code)) return true;
  const message = (err as { message?: unknown }).message;
  // "…is not queryable": pg's answer for a client whose socket already died (checked out before
  // the pool saw the close).
  return typeof message === "string" && /Connection terminated|terminating connection|is not queryable/i.test(message);
}

/**
 * Runs `fn` (one transaction) again when its PostgreSQL connection was lost under it: the pool has
 * dropped that client, so the retry gets a fresh one. A commit whose acknowledgement was lost may
 * run twice; callers are idempotent (queue rows are digested once per event id). When every
 * backend was terminated at once, the pool may still hold other dead idle clients whose close it
 * has not processed yet: each retry first yields to the event loop a little longer, so it does.
 */
export async function retryOnLostConnection<T>(fn: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      if (i >= attempts || !isLostConnection(err)) throw err;
    }
    await new Promise((r) => setTimeout(r, 10 * i));
  }
}
