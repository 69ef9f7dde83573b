import { describe, expect, test } from "vitest";
import type { QueueInsert } from "../storage/queue/queue";
import { CommitterClosedError, createGroupCommitter } from "./group-commit";

const row = (n: number): QueueInsert => ({
  projectId: 1,
  keyId: 1,
  receivedAt: n,
  clientIp: null,
  kind: "envelope",
  body: Buffer.from(String(n)),
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function recorder(delayMs = 0, failOn?: (rows: QueueInsert[]) => boolean) {
  const batches: number[][] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const write = async (rows: QueueInsert[]) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await sleep(delayMs);
    inFlight--;
    if (failOn?.(rows)) throw new Error("disk full");
    batches.push(rows.map((r) => r.receivedAt));
  };
  return { write, batches, maxInFlight: () => maxInFlight };
}

describe("group committer", () => {
  test("window 0: rows added in the same turn of the event loop share one write", async () => {
    const rec = recorder();
    const gc = createGroupCommitter(rec.write, { windowMs: 0, maxItems: 100 });
    await Promise.all([gc.add(row(1)), gc.add(row(2)), gc.add(row(3))]);
    await gc.add(row(4));
    expect(rec.batches).toEqual([[1, 2, 3], [4]]);
  });

  test("rows within the window share one write; promises resolve after it", async () => {
    const rec = recorder();
    const gc = createGroupCommitter(rec.write, { windowMs: 20, maxItems: 100 });
    let resolved = 0;
    const ps = [1, 2, 3].map((n) => gc.add(row(n)).then(() => resolved++));
    await sleep(5);
    expect(resolved).toBe(0);
    expect(rec.batches).toEqual([]);
    await Promise.all(ps);
    expect(rec.batches).toEqual([[1, 2, 3]]);
  });

  test("maxItems seals a batch at once", async () => {
    const rec = recorder();
    const gc = createGroupCommitter(rec.write, { windowMs: 10_000, maxItems: 2 });
    await Promise.all([gc.add(row(1)), gc.add(row(2))]);
    expect(rec.batches).toEqual([[1, 2]]);
    const p3 = gc.add(row(3));
    await gc.flush();
    await p3;
    expect(rec.batches).toEqual([[1, 2], [3]]);
  });

  test("one write in flight; rows arriving meanwhile form the next batch", async () => {
    const rec = recorder(30);
    const gc = createGroupCommitter(rec.write, { windowMs: 1, maxItems: 100 });
    const first = gc.add(row(1));
    await sleep(10); // first write is now in flight
    const later = [2, 3, 4].map((n) => gc.add(row(n)));
    await Promise.all([first, ...later]);
    expect(rec.batches).toEqual([[1], [2, 3, 4]]);
    expect(rec.maxInFlight()).toBe(1);
  });

  test("two in flight: a second batch is written while the first commits; the rest wait; flush waits for all", async () => {
    // Writes finish only when the test says so: no timing involved.
    const started: Array<{ rows: number[]; finish: () => void }> = [];
    const write = (rows: QueueInsert[]) => new Promise<void>((finish) => started.push({ rows: rows.map((r) => r.receivedAt), finish }));
    const until = async (cond: () => boolean) => {
      while (!cond()) await new Promise((r) => setImmediate(r));
    };
    const gc = createGroupCommitter(write, { windowMs: 0, maxItems: 100, maxInFlight: 2 });
    const first = gc.add(row(1));
    await until(() => started.length === 1);
    const second = gc.add(row(2));
    await until(() => started.length === 2);
    const waiting = [3, 4].map((n) => gc.add(row(n)));
    let flushed = false;
    const flush = gc.flush().then(() => {
      flushed = true;
    });
    // Both slots taken: rows 3 and 4 wait, however many turns of the loop pass.
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(started.map((w) => w.rows)).toEqual([[1], [2]]);
    started[0]?.finish();
    await first;
    await until(() => started.length === 3);
    expect(started[2]?.rows).toEqual([3, 4]);
    started[2]?.finish();
    await Promise.all(waiting);
    expect(flushed).toBe(false); // the second batch is still in flight
    started[1]?.finish();
    await Promise.all([second, flush]);
    expect(flushed).toBe(true);
  });

  test("a failed write rejects exactly its batch; the committer keeps working", async () => {
    const rec = recorder(0, (rows) => rows.some((r) => r.receivedAt === 2));
    const gc = createGroupCommitter(rec.write, { windowMs: 1, maxItems: 100 });
    await gc.add(row(1));
    const bad = [gc.add(row(2)), gc.add(row(3))];
    const results = await Promise.allSettled(bad);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    await gc.add(row(4));
    expect(rec.batches).toEqual([[1], [4]]);
  });

  test("a write that throws synchronously is a rejection, not a crash", async () => {
    const gc = createGroupCommitter(
      () => {
        throw new Error("sync boom");
      },
      { windowMs: 0, maxItems: 10 },
    );
    await expect(gc.add(row(1))).rejects.toThrow("sync boom");
  });

  test("close flushes pending rows, then refuses new ones", async () => {
    const rec = recorder(5);
    const gc = createGroupCommitter(rec.write, { windowMs: 10_000, maxItems: 100 });
    const p = gc.add(row(1));
    await gc.close();
    await p;
    expect(rec.batches).toEqual([[1]]);
    await expect(gc.add(row(2))).rejects.toBeInstanceOf(CommitterClosedError);
  });
});
