/**
 * Erasing what the queue held. The queue stores raw SDK bodies — secrets included, scrubbing runs
 * in the digest — and deletes each row once its events are stored. SQLite, however, keeps the
 * bytes of deleted rows: in the page's free space and in freed overflow pages (unless
 * `secure_delete` is on), and in old WAL frames until the WAL is reset. So on SQLite every
 * connection to the queue's file zeroes what it deletes (`openQueueFile`, queue-file.ts), and
 * after a batch that file's WAL is checkpointed and truncated —
 * at once when the queue is empty (nothing else pending: the common case, and the idle state),
 * else at most every few seconds under sustained load. A checkpoint costs ~2 ms (one fsync).
 *
 * PostgreSQL: deleted tuples stay in the heap until vacuumed (and their bytes until the space is
 * reused) and in WAL segments until recycled; there is no per-connection equivalent.
 */
import type { Db } from "../db";

/** How often (at most) the WAL is checkpointed and truncated after a digest batch. */
export const ERASE_INTERVAL_MS = 5_000;

const lastErase = new WeakMap<object, number>();
const queueProbe = new WeakMap<object, { get(): unknown }>();

/**
 * After a digest batch committed: checkpoints and truncates the WAL when the queue is empty or
 * `ERASE_INTERVAL_MS` have passed since the last time (`now` in epoch ms). Never waits for other
 * connections: when one is busy the checkpoint is incomplete and retried next time. Returns true
 * when the WAL was emptied.
 */
export function eraseDeletedContent(db: Db, now: number): boolean {
  const handle = db.sqlite;
  if (!handle) return false;
  const last = lastErase.get(handle);
  let probe = queueProbe.get(handle);
  if (!probe) {
    probe = handle.prepare("SELECT 1 FROM queue LIMIT 1");
    queueProbe.set(handle, probe);
  }
  const queueEmpty = probe.get() === undefined;
  if (!queueEmpty && last !== undefined && now - last < ERASE_INTERVAL_MS) return false;
  lastErase.set(handle, now);
  const timeout = handle.pragma("busy_timeout", { simple: true }) as number;
  handle.pragma("busy_timeout = 0");
  try {
    const [res] = handle.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number; log: number; checkpointed: number }>;
    return res?.busy === 0;
  } catch {
    // SQLITE_BUSY while another connection writes: next time.
    return false;
  } finally {
    handle.pragma(`busy_timeout = ${timeout}`);
  }
}
