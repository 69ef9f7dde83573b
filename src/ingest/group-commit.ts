/**
 * Group commit (ARCHITECTURE principle 9): requests arriving within `windowMs` — or until
 * `maxItems` — share one `write` (one transaction, one fsync), then all of them are answered.
 * At most `maxInFlight` writes are in flight; rows that arrive meanwhile form the next batch, which
 * is written as soon as a write finishes (so batches grow with the database's latency). Two in
 * flight pipeline the work: the database commits one batch while this thread answers the previous
 * batch's requests and hands over the next, instead of each waiting for the other.
 * When a write fails every request of that batch sees the rejection (→ 503, never a crash).
 */
import type { QueueInsert } from "../storage/queue/queue";

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
  /** Writes allowed in flight at once (default 1). */
  maxInFlight?: number;
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
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 1);
  /** Collecting rows; not yet due. */
  let open: Batch | undefined;
  /** Full or due batches waiting for the writer, oldest first. */
  const ready: Batch[] = [];
  /** Batches handed to `write` and not settled yet. */
  const inFlight = new Set<Batch>();
  /** the window's timer, or (window 0) the setImmediate that ends the current loop turn */
  let timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  let closed = false;

  function seal(): void {
    if (timer) {
      clearWindow(timer);
      timer = undefined;
    }
    if (!open) return;
    ready.push(open);
    open = undefined;
    pump();
  }

  function onWindow(): void {
    timer = undefined;
    // With every write slot taken the open batch waits: pump() takes it when a write ends.
    if (inFlight.size < maxInFlight) seal();
  }

  function pump(): void {
    while (inFlight.size < maxInFlight) {
      const batch = ready.shift();
      if (!batch) {
        // Rows that arrived during a write have waited long enough: write them now.
        if (open) seal();
        return;
      }
      start(batch);
    }
  }

  function start(batch: Batch): void {
    inFlight.add(batch);
    let pending: Promise<void>;
    try {
      pending = write(batch.rows);
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      () => afterWrite(batch, undefined),
      (err: unknown) => afterWrite(batch, err ?? new Error("write failed")),
    );
  }

  function afterWrite(batch: Batch, err: unknown): void {
    inFlight.delete(batch);
    if (err === undefined) batch.resolve();
    else batch.reject(err);
    pump();
  }

  async function flush(): Promise<void> {
    seal();
    // Everything added so far is now in flight or waiting in `ready`.
    const pending = [...inFlight, ...ready];
    await Promise.all(pending.map((b) => b.promise.catch(noop)));
  }

  return {
    add(row: QueueInsert): Promise<void> {
      if (closed) return Promise.reject(new CommitterClosedError());
      if (!open) open = newBatch();
      const batch = open;
      batch.rows.push(row);
      if (batch.rows.length >= maxItems) seal();
      else if (!timer && inFlight.size < maxInFlight) {
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
