/**
 * SQLite queue writes on a thread of their own. better-sqlite3 is synchronous: on the main thread
 * every group commit would block ingest's event loop for the commit itself, for WAL checkpoints
 * (an fsync — tens of ms every few hundred requests) and for as long as the digest worker holds
 * SQLite's single write lock (busy_timeout). Here the main thread only copies the batch's bodies
 * into one transferable buffer and awaits the writer's answer, and no queue commit waits for a WAL
 * checkpoint (see the thread source). A 200 still means committed: the promise resolves after
 * COMMIT.
 *
 * The thread is plain JavaScript evaluated from a string (no extra bundle entry), loading the
 * same better-sqlite3 build the main thread chose (sqlite-driver.ts) and running the SQL of queue.ts / outcomes.ts.
 */
import { Worker } from "node:worker_threads";
import type { OutcomeCount } from "../../core/outcomes";
import type { Db } from "../db";
import { OUTCOME_UPSERT_SQL } from "../events/outcomes";
import { sqliteModulePath } from "../sqlite-driver";
import { QUEUE_CACHE_KIB } from "./file";
import { QUEUE_BODY_INSERT_SQL, QUEUE_INSERT_SQL, type QueueInsert } from "./queue";

export interface QueueWriter {
  /**
   * Inserts the rows (queue file), then adds the outcome counts (main file), each in an IMMEDIATE
   * transaction of its own; resolves after both COMMITs. Ingest sends one or the other, so a row
   * batch never waits for the main file's lock.
   */
  write(rows: QueueInsert[], outcomes: readonly OutcomeCount[]): Promise<void>;
  close(): Promise<void>;
}

const THREAD_SOURCE = `
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.sqlitePath);
function open(file) {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = " + workerData.synchronous);
  // SQLite's own busy handler sleeps in growing steps (up to 100 ms) and can keep missing the
  // short gaps between other connections' transactions; this thread retries BEGIN IMMEDIATE every
  // millisecond instead (a failed attempt costs microseconds). Waiting blocks only this thread.
  db.pragma("busy_timeout = 0");
  // No checkpoint (an fsync) inside a queue commit: the digest's connections checkpoint as they
  // commit, and this thread does it only when ingest has been idle for a moment.
  db.pragma("wal_autocheckpoint = 0");
  // It appends and upserts: a few pages of index tails, not the default 2 MB.
  db.pragma("cache_size = -" + workerData.cacheKiB);
  return db;
}
const nap = new Int32Array(new SharedArrayBuffer(4));
// Rows go to the queue's own file; outcome counts to the main file, opened on first use (they
// come only with refused requests).
const queue = open(workerData.queueFile);
const insert = queue.prepare(workerData.insertSql);
const insertBody = queue.prepare(workerData.bodySql);
const rowsTx = queue.transaction((msg) => {
  const bytes = Buffer.from(msg.buffer);
  for (const r of msg.rows) insertBody.run(insert.run(r[0], r[1], r[2], r[3], r[4]).lastInsertRowid, bytes.subarray(r[5], r[6]));
});
let main;
let outcomesTx;
function mainTx() {
  if (!outcomesTx) {
    main = open(workerData.file);
    const upsert = main.prepare(workerData.outcomeSql);
    outcomesTx = main.transaction((msg) => {
      for (const o of msg.outcomes) upsert.run(o[0], o[1], o[2], o[3], o[4], o[5], o[6]);
    });
  }
  return outcomesTx;
}
function retrying(tx, msg) {
  const deadline = Date.now() + workerData.lockTimeoutMs;
  for (;;) {
    try {
      tx.immediate(msg);
      return;
    } catch (err) {
      // BUSY can only come from BEGIN IMMEDIATE (nothing was written yet): safe to retry.
      if (!err || err.code !== "SQLITE_BUSY" || Date.now() > deadline) throw err;
      Atomics.wait(nap, 0, 0, 1);
    }
  }
}
function answer(msg, err) {
  // The batch's buffer goes back with the answer, for the next batch to reuse (see write()).
  if (!err) parentPort.postMessage({ id: msg.id, ok: true, buffer: msg.buffer }, [msg.buffer]);
  else parentPort.postMessage({ id: msg.id, ok: false, message: String((err && err.message) || err), code: err && err.code, buffer: msg.buffer }, [msg.buffer]);
}
// Counts wait for the main file's lock (the digest's transaction holds it for tens of ms) without
// blocking this thread: one attempt now, then one every few ms between the rows' commits.
const countsWaiting = [];
let countsRetry;
function writeCounts() {
  while (countsWaiting.length > 0) {
    const msg = countsWaiting[0];
    let failed = null;
    try {
      mainTx().immediate(msg);
    } catch (err) {
      if (err && err.code === "SQLITE_BUSY" && Date.now() <= msg.deadline) {
        countsRetry ??= setTimeout(() => {
          countsRetry = undefined;
          writeCounts();
        }, 2);
        return;
      }
      failed = err;
    }
    countsWaiting.shift();
    answer(msg, failed);
  }
}
let idle;
function checkpointWhenIdle() {
  clearTimeout(idle);
  idle = setTimeout(() => {
    try {
      queue.pragma("wal_checkpoint(PASSIVE)");
    } catch {}
  }, workerData.idleCheckpointMs);
  idle.unref();
}
parentPort.on("message", (msg) => {
  if (msg === "close") {
    clearTimeout(idle);
    clearTimeout(countsRetry);
    queue.close();
    if (main) main.close();
    parentPort.close();
    return;
  }
  try {
    if (msg.rows.length > 0) retrying(rowsTx, msg);
  } catch (err) {
    answer(msg, err);
    return;
  }
  if (msg.outcomes.length === 0) answer(msg, null);
  else {
    msg.deadline = Date.now() + workerData.lockTimeoutMs;
    countsWaiting.push(msg);
    writeCounts();
  }
  checkpointWhenIdle();
});
`;

/** Ingest idle this long → the writer checkpoints the WAL (PASSIVE: never waits for anyone). */
const IDLE_CHECKPOINT_MS = 250;
/** A batch that cannot get SQLite's write lock for this long fails (its requests answer 503). */
const LOCK_TIMEOUT_MS = 15_000;
/**
 * Largest batch buffer kept for reuse (64 connections of 46 KB envelopes fit); a bigger batch gets
 * a buffer of its own, dropped after.
 */
const MAX_KEPT_BUFFER = 4 * 1024 * 1024;
/** Ingest quiet this long → the kept buffers are let go (idle memory). */
const SPARES_IDLE_MS = 2_000;
/** Smallest buffer kept: room for a few dozen typical envelopes, so sizes settle quickly. */
const MIN_KEPT_BUFFER = 256 * 1024;

/** Buffers kept: one per write in flight (GROUP_COMMIT_IN_FLIGHT's default) and one spare. */
const MAX_SPARES = 3;

interface Pending {
  resolve(): void;
  reject(err: Error): void;
}

/**
 * Starts the writer for a SQLite database: rows into its queue file, outcome counts into the main
 * file (`synchronous` as the main connection has it).
 */
export function startQueueWriter(file: string, queueFile: string, synchronous: string): QueueWriter {
  const sqlitePath = sqliteModulePath();
  let closing: Promise<void> | undefined;
  let worker: Worker | undefined;
  let seq = 0;
  const pending = new Map<number, Pending>();
  let closed = false;
  /**
   * Batch buffers handed back by the thread with its answers (one per batch in flight). A new
   * ArrayBuffer per batch (hundreds of KB) cost the main thread a sixth of its time under load —
   * fresh pages, zeroed and faulted in — and, freed later by the writer thread, grew its heap.
   */
  const spares: ArrayBuffer[] = [];
  const dropSpares = setInterval(() => {
    if (pending.size === 0 && Date.now() - lastWrite > SPARES_IDLE_MS) spares.length = 0;
  }, SPARES_IDLE_MS);
  dropSpares.unref();
  let lastWrite = 0;

  function keepSpare(buffer: ArrayBuffer): void {
    if (buffer.byteLength > MAX_KEPT_BUFFER) return;
    spares.push(buffer);
    if (spares.length > MAX_SPARES) {
      // Keep the largest: batch sizes settle, and a small one would only be replaced.
      spares.sort((a, b) => b.byteLength - a.byteLength);
      spares.length = MAX_SPARES;
    }
  }

  function takeBuffer(size: number): ArrayBuffer {
    const i = spares.findIndex((b) => b.byteLength >= size);
    if (i >= 0) return spares.splice(i, 1)[0] as ArrayBuffer;
    if (size > MAX_KEPT_BUFFER) return new ArrayBuffer(size);
    let cap = MIN_KEPT_BUFFER;
    while (cap < size) cap *= 2;
    return new ArrayBuffer(cap);
  }

  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };

  function thread(): Worker {
    if (worker) return worker;
    const w = new Worker(THREAD_SOURCE, {
      eval: true,
      // It allocates little per batch (the bodies arrive as one transferred buffer): a small young
      // generation saves RSS at no cost. `--max-semi-space-size` (npm start) overrides it, as it
      // does for every isolate; then this thread's semi-space is the process's 4 MB.
      resourceLimits: { maxYoungGenerationSizeMb: 2 },
      workerData: {
        sqlitePath,
        file,
        queueFile,
        synchronous,
        insertSql: QUEUE_INSERT_SQL,
        bodySql: QUEUE_BODY_INSERT_SQL,
        outcomeSql: OUTCOME_UPSERT_SQL,
        idleCheckpointMs: IDLE_CHECKPOINT_MS,
        cacheKiB: QUEUE_CACHE_KIB,
        lockTimeoutMs: LOCK_TIMEOUT_MS,
      },
    });
    w.on("message", (m: { id: number; ok: boolean; message?: string; code?: string; buffer?: ArrayBuffer }) => {
      if (m.buffer) keepSpare(m.buffer);
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (m.ok) p.resolve();
      else p.reject(Object.assign(new Error(m.message ?? "queue write failed"), { code: m.code }));
    });
    w.on("error", (err) => failAll(err));
    w.on("exit", (code) => {
      if (worker === w) worker = undefined;
      // A crashed writer fails its batch (503s); the next write starts a new thread.
      failAll(new Error(`the queue writer thread exited (${code})`));
    });
    // Between batches the thread must not keep the process alive.
    w.unref();
    worker = w;
    return w;
  }

  return {
    write(rows, outcomes) {
      if (closed) return Promise.reject(new Error("the queue writer is closed"));
      // One copy of the bodies into a buffer we may transfer (request bodies can share pooled memory).
      let size = 0;
      for (const r of rows) size += r.body.length;
      const buffer = takeBuffer(size);
      lastWrite = Date.now();
      const bytes = new Uint8Array(buffer);
      const packed: Array<[number, number, number, string | null, string, number, number]> = [];
      let at = 0;
      for (const r of rows) {
        bytes.set(r.body, at);
        packed.push([r.projectId, r.keyId, r.receivedAt, r.clientIp, r.kind, at, at + r.body.length]);
        at += r.body.length;
      }
      const counts = outcomes.map((o) => [o.projectId, o.keyId, o.hour, o.category, o.outcome, o.reason, o.quantity]);
      const id = ++seq;
      return new Promise<void>((resolve, reject) => {
        const w = thread();
        // Referenced while a batch is in flight (a pending 200 keeps the process alive), not after.
        const settled = () => {
          if (pending.size === 0) worker?.unref();
        };
        pending.set(id, {
          resolve: () => {
            resolve();
            settled();
          },
          reject: (err) => {
            reject(err);
            settled();
          },
        });
        w.ref();
        w.postMessage({ id, rows: packed, outcomes: counts, buffer }, [buffer]);
      });
    },
    close() {
      closed = true;
      clearInterval(dropSpares);
      spares.length = 0;
      closing ??= worker ? stopThread(worker) : Promise.resolve();
      return closing;
    },
  };
}

function stopThread(w: Worker): Promise<void> {
  const exited = new Promise<void>((r) => w.once("exit", () => r()));
  w.ref();
  w.postMessage("close");
  return exited;
}

const SYNCHRONOUS = ["OFF", "NORMAL", "FULL", "EXTRA"];

/**
 * A writer thread for this database when it is a SQLite file (undefined for PostgreSQL, whose
 * driver is asynchronous already, and for in-memory databases no other thread can open).
 */
export function queueWriterFor(db: Db): QueueWriter | undefined {
  const handle = db.sqlite;
  const queue = db.queueDb?.sqlite;
  if (!handle || !queue || handle.memory || !handle.name) return undefined;
  const level = Number(handle.pragma("synchronous", { simple: true }));
  return startQueueWriter(handle.name, queue.name, SYNCHRONOUS[level] ?? "NORMAL");
}
