/**
 * Periodic jobs run once per installation: two processes (two connection pools on one database)
 * never run a job at the same time, and each interval's run is claimed by exactly one of them.
 */
import pino from "pino";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runMaintenance } from "../../src/pipeline/retention";
import { type Db, openDb } from "../../src/storage/db";
import { claimJobRun, withJobLock } from "../../src/storage/job-lock";
import { eventually } from "../helpers/server";
import { dialects, openTestDb } from "../helpers/test-db";

const NOW = Date.UTC(2026, 5, 1);
const MINUTE = 60_000;

describe.each(await dialects())("installation jobs (%s)", (dialect) => {
  let db: Db;
  let other: Db;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const t = await openTestDb(dialect);
    db = t.db;
    close = t.close;
    // A second process: its own pool (PostgreSQL) or its own handle on the same file (SQLite).
    other = openDb(t.info.config);
  });
  afterAll(async () => {
    await other.close();
    await close();
  });

  test("each interval's run is claimed once across processes", async () => {
    const claims = await Promise.all([claimJobRun(db, "retention", NOW, 10 * MINUTE), claimJobRun(other, "retention", NOW, 10 * MINUTE)]);
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await claimJobRun(other, "retention", NOW + 9 * MINUTE, 10 * MINUTE)).toBe(false);
    expect(await claimJobRun(other, "retention", NOW + 10 * MINUTE, 10 * MINUTE)).toBe(true);
    // Another job has its own stamp.
    expect(await claimJobRun(db, "lifecycle-sweep", NOW, 10 * MINUTE)).toBe(true);
  });

  test.runIf(dialect === "postgres")("a job running in one process is skipped by the other", async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const first = withJobLock(db, "lifecycle-sweep", async () => {
      entered();
      await held;
      return "first";
    });
    await inside;
    expect(await withJobLock(other, "lifecycle-sweep", async () => "second")).toEqual({ ran: false });
    release();
    expect(await first).toEqual({ ran: true, value: "first" });
    // Released: the other process gets it now.
    expect(await withJobLock(other, "lifecycle-sweep", async () => "second")).toEqual({ ran: true, value: "second" });
  });

  test("two maintenance loops run retention once per interval", async () => {
    const lines: string[] = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
    const retention = {
      days: 90,
      eventCap: 1_000_000,
      intervalMs: 3_600_000,
      firstRunDelayMs: 0,
      batchSize: 500,
      pauseMs: 0,
      artifactDays: 90,
      sweepIntervalMs: 1_000,
      monitorDays: 30,
    };
    const lifecycle = { ongoingAfterMs: 7 * 86_400_000 };
    // A clock far past the first test's stamps. Process A runs a round and stops.
    const later = NOW + 24 * 3_600_000;
    const a = new AbortController();
    const loopA = runMaintenance({ db, config: { retention, lifecycle }, log, signal: a.signal, now: () => later });
    await eventually(async () => lines.some((l) => l.includes('"retention run"')), 10_000, "retention to run");
    a.abort();
    await loopA;
    // Process B starts within the same retention interval; its clock moves 2 s per reading, so
    // it sweeps every round. Once its second round has begun, its first round is over.
    let readings = 0;
    const b = new AbortController();
    const loopB = runMaintenance({
      db: other,
      config: { retention, lifecycle },
      log,
      signal: b.signal,
      now: () => later + 2_000 * ++readings,
    });
    await eventually(async () => readings >= 4, 10_000, "a second round of process B");
    b.abort();
    await loopB;
    expect(lines.filter((l) => l.includes('"retention run"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("failed"))).toEqual([]);
  });
});
