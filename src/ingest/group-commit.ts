/**
 * Group commit (ARCHITECTURE principle 9): requests arriving within `windowMs` — or until
 * `maxItems` — share one `write` (one transaction, one fsync), then all of them are answered.
 * Only one write is in flight at a time; rows that arrive meanwhile form the next batch, which is
 * written as soon as the current write finishes (so batches grow with the database's latency).
 * When a write fails every request of that batch sees the rejection (→ 503, never a crash).
 */
import type { QueueInsert } from "../storage/queue";

export interface GroupCommitter {
  /** Resolves once the row is committed; rejects when its batch's write failed. */
  add(row: QueueInsert): Promise<void>;
  /** Writes what is pending now; resolves when everything added so far is settled. */
  flush(): Promise<void>;
  /** Flushes, then rejects further adds. */
  close(): Promise<void>;
}

export interface GroupCommitOptions {
  windowMs: number;
  maxItems: number;
}

export class CommitterClosedError extends Error {
  constructor() {
    super("the group committer is closed");
    this.name = "CommitterClosedError";
  }
}

/** A batch: its rows and one promise shared by all of them (no per-row promise or closure). */
interface Batch {
  rows: QueueInsert[];
  promise: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

function noop(): void {}

function clearWindow(t: NodeJS.Timeout | NodeJS.Immediate): void {
  if ("refresh" in t) clearTimeout(t);
  else clearImmediate(t);
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Every add() caller awaits this promise; the extra handler only keeps a batch whose callers
  // have all gone (e.g. flush() alone) from becoming an unhandled rejection.
  promise.catch(noop);
  return { rows: [], promise, resolve, reject };
}

export function createGroupCommitter(write: (rows: QueueInsert[]) => Promise<void>, opts: GroupCommitOptions): GroupCommitter {
  const maxItems = Math.max(1, opts.maxItems);
  const windowMs = Math.max(0, opts.windowMs);
  /** Collecting rows; not yet due. */
  let open: Batch | undefined;
  /** Full or due batches waiting for the writer, oldest first. */
  const ready: Batch[] = [];
  let writing = false;
  /** the window's timer, or (window 0) the setImmediate that ends the current loop turn */
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  /** The last batch handed to the writer queue: flush() waits for it (writes are sequential). */
  let last: Batch | undefined;
  let closed = false;

  function seal(): void {
    if (timer) {
      clearWindow(timer);
      timer = undefined;
    }
    if (!open) return;
    ready.push(open);
    last = open;
    open = undefined;
    pump();
  }

  function onWindow(): void {
    timer = undefined;
    // While a write is in flight the open batch waits: pump() takes it when the write ends.
    if (!writing) seal();
  }

  function pump(): void {
    if (writing) return;
    let batch = ready.shift();
    if (!batch && open) {
      // Rows that arrived during the previous write have waited long enough: write them now.
      seal();
      return;
    }
    if (!batch) return;
    writing = true;
    const done = batch;
    batch = undefined;
    let pending: Promise<void>;
    try {
      pending = write(done.rows);
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      () => afterWrite(done, undefined),
      (err: unknown) => afterWrite(done, err ?? new Error("write failed")),
    );
  }

  function afterWrite(batch: Batch, err: unknown): void {
    writing = false;
    if (err === undefined) batch.resolve();
    else batch.reject(err);
    pump();
  }

  async function flush(): Promise<void> {
    seal();
    // Batches are written in order, so the last one settling means all earlier ones have.
    const target = last;
    if (target) await target.promise.catch(noop);
  }

  return {
    add(row: QueueInsert): Promise<void> {
      if (closed) return Promise.reject(new CommitterClosedError());
      if (!open) open = newBatch();
      const batch = open;
      batch.rows.push(row);
      if (batch.rows.length >= maxItems) seal();
      else if (!timer && !writing) {
        // Window 0: everything whose body completed in this turn of the event loop shares the
        // write (setTimeout would wait at least 1 ms).
        timer = windowMs === 0 ? setImmediate(onWindow) : setTimeout(onWindow, windowMs);
        timer.unref();
      }
      return batch.promise;
    },
    flush,
    async close(): Promise<void> {
      closed = true;
      await flush();
    },
  };
}
