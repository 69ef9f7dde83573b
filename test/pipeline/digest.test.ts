import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { digestBatch } from "../../src/pipeline/digest-batch";
import { runWorker, Waker } from "../../src/pipeline/worker";
import type { Db } from "../../src/storage/db";
import { countEvents, getEvent, getLatestEvent, listIssueEvents } from "../../src/storage/events/events";
import { countIssues, getIssue, listIssueHashes } from "../../src/storage/issues/issues";
import { type IssueSearchPage, type StorageCondition, searchIssues } from "../../src/storage/issues/search";
import { claimBatch, enqueueMany, type QueueInsert, queueDepth } from "../../src/storage/queue/queue";
import { dialects, openTestDb } from "../helpers/test-db";
import { capturedBody, corpusBytes, corpusFiles, corpusJson, toEnvelope } from "./corpus";
import { createProject, deps, drain, hexId, LIMITS, silentLog } from "./helpers";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const files = corpusFiles();

function row(projectId: number, kind: "store" | "envelope", body: Buffer, receivedAt = NOW): QueueInsert {
  return { projectId, keyId: 1, receivedAt, clientIp: "198.51.100.9", kind, body };
}

/** The corpus event with a unique id (the corpus reuses some ids across files). */
function withId(file: string, salt: string): { id: string; event: Record<string, unknown> } {
  const id = hexId(`${salt}:${file}`);
  return { id, event: { ...(corpusJson(file) as Record<string, unknown>), event_id: id } };
}

async function sumIssueCounts(db: Db, projectId: number): Promise<{ issues: number; events: number }> {
  let cursor: IssueSearchPage["nextCursor"] = null;
  let issues = 0;
  let events = 0;
  for (;;) {
    const page: IssueSearchPage = await searchIssues(db, { projectIds: [projectId], conditions: [], sort: "date", limit: 40, cursor });
    issues += page.items.length;
    for (const i of page.items) events += i.eventCount;
    if (!page.nextCursor) return { issues, events };
    cursor = page.nextCursor;
  }
}

describe.each(await dialects())("digest on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("every corpus file as a store body → one event each, on an issue; counts add up", async () => {
    const projectId = await createProject(db, "store");
    const ids = files.map((f) => withId(f, "store"));
    await enqueueMany(
      db,
      ids.map(({ event }) => row(projectId, "store", Buffer.from(JSON.stringify(event)))),
    );
    const r = await drain(db, NOW);
    expect(r).toEqual({ events: files.length, duplicates: 0, skipped: 0, failed: 0 });
    expect(await queueDepth(db)).toBe(0);
    expect(await countEvents(db, { projectId })).toBe(files.length);
    for (const { id } of ids) {
      const ev = await getEvent(db, projectId, id);
      expect(ev, id).toBeDefined();
      const issue = await getIssue(db, ev?.issueId ?? -1);
      expect(issue?.projectId).toBe(projectId);
      expect((ev?.event.errata as { grouping?: { hash: string } } | undefined)?.grouping?.hash).toMatch(/^[0-9a-f]{64}$/);
    }
    const sums = await sumIssueCounts(db, projectId);
    expect(sums.events).toBe(files.length);
    expect(sums.issues).toBe(await countIssues(db, { projectIds: [projectId] }));
    // New projects group with v2: the same browser error from Chrome and Safari is one issue,
    // two different minidumps are two (v1 merged them; see grouping-v2.test).
    const a = await getEvent(db, projectId, ids[files.indexOf("sentry/javascript-xbrowser-chrome.json")]?.id ?? "");
    const b = await getEvent(db, projectId, ids[files.indexOf("sentry/javascript-xbrowser-safari.json")]?.id ?? "");
    const c = await getEvent(db, projectId, ids[files.indexOf("sentry/group_275_event_275.json")]?.id ?? "");
    const d = await getEvent(db, projectId, ids[files.indexOf("sentry/group_389_event_389.json")]?.id ?? "");
    expect(c?.issueId).not.toBe(d?.issueId);
    expect(a?.issueId).toBe(b?.issueId);
  });

  test("every corpus file as an envelope (with a session item) → one event each; sessions skipped", async () => {
    const projectId = await createProject(db, "envelope");
    const bodies = files.map((f) => {
      const { id, event } = withId(f, "envelope");
      // The payload's own id differs: the envelope header's id must win.
      const env = toEnvelope({ ...event, event_id: hexId(`payload:${f}`) }, id);
      return { id, body: Buffer.concat([env, Buffer.from('\n{"type":"session"}\n{"sid":"x","status":"ok"}')]) };
    });
    await enqueueMany(
      db,
      bodies.map((b) => row(projectId, "envelope", b.body)),
    );
    const r = await drain(db, NOW, 64);
    expect(r).toEqual({ events: files.length, duplicates: 0, skipped: files.length, failed: 0 });
    for (const { id } of bodies) expect(await getEvent(db, projectId, id), id).toBeDefined();
    expect((await sumIssueCounts(db, projectId)).events).toBe(files.length);
    expect(await queueDepth(db)).toBe(0);
  });

  test("raw corpus bytes: ids reused across files are stored once and counted as duplicates", async () => {
    const projectId = await createProject(db, "raw");
    await enqueueMany(
      db,
      files.map((f) => row(projectId, "store", corpusBytes(f))),
    );
    const r = await drain(db, NOW, 30);
    const unique = new Set(files.map((f) => String((corpusJson(f) as { event_id?: unknown }).event_id).replace(/-/g, ""))).size;
    expect(r.events).toBe(unique);
    expect(r.events + r.duplicates).toBe(files.length);
    expect(await countEvents(db, { projectId })).toBe(unique);
  });

  test("the captured @sentry/node requests: session, event, session", async () => {
    const projectId = await createProject(db, "node");
    await enqueueMany(
      db,
      [7, 8, 9].map((n) => row(projectId, "envelope", capturedBody("node-sdk-envelope.txt", n), Date.UTC(2026, 10, 22, 10, 44))),
    );
    const r = await drain(db, NOW);
    expect(r).toEqual({ events: 1, duplicates: 0, skipped: 2, failed: 0 });
    const ev = await getEvent(db, projectId, "189d194c503a4ca092f4c473a1f6bbc9");
    expect(ev).toMatchObject({
      title: "Error: boom",
      level: "error",
      platform: "node",
      release: "stackcheck@1.0.0",
      environment: "test",
      traceId: "fe613d452a8b4f79aa911eb004a80e78",
    });
    expect(ev?.timestamp).toBe(1795344235444);
    const issue = await getIssue(db, ev?.issueId ?? -1);
    expect(issue).toMatchObject({
      shortId: 1,
      title: "Error: boom",
      type: "error",
      eventCount: 1,
      userCount: 0,
      firstRelease: "stackcheck@1.0.0",
      lastEventId: ev?.eventId,
      firstEventId: ev?.eventId,
    });
    expect(issue?.metadata).toMatchObject({ type: "Error", value: "boom" });
    // v2: an `app` (in-app frames) and a `system` (all frames) hash.
    expect(await listIssueHashes(db, issue?.id ?? -1)).toHaveLength(2);
    expect((await getLatestEvent(db, issue?.id ?? -1))?.eventId).toBe(ev?.eventId);
  });

  test("the same event id posted twice (same batch and later batch) is stored once", async () => {
    const projectId = await createProject(db, "dupes");
    const id = hexId("dupe");
    const body = Buffer.from(JSON.stringify({ event_id: id, message: "dupe me" }));
    await enqueueMany(db, [row(projectId, "store", body), row(projectId, "envelope", toEnvelope({ message: "dupe me" }, id))]);
    expect(await drain(db, NOW)).toEqual({ events: 1, duplicates: 1, skipped: 0, failed: 0 });
    await enqueueMany(db, [row(projectId, "store", body)]);
    expect(await drain(db, NOW)).toEqual({ events: 0, duplicates: 1, skipped: 0, failed: 0 });
    const ev = await getEvent(db, projectId, id);
    expect((await getIssue(db, ev?.issueId ?? -1))?.eventCount).toBe(1);
  });

  test("one batch: events of one new issue end in one issue; users counted exactly; short ids sequential", async () => {
    const projectId = await createProject(db, "users");
    const mk = (n: number, user: Record<string, unknown> | undefined, msg = "same thing") =>
      row(
        projectId,
        "store",
        Buffer.from(
          JSON.stringify({ event_id: hexId(`u${n}`), message: msg, user, level: n === 3 ? "warning" : "error", release: `r${n}` }),
        ),
        NOW + n,
      );
    await enqueueMany(db, [
      mk(1, { id: 1 }),
      mk(2, { id: "1" }),
      mk(3, { email: "a@b.c" }),
      mk(4, undefined),
      mk(5, { id: 9 }, "other thing"),
    ]);
    expect(await drain(db, NOW + 10)).toMatchObject({ events: 5 });
    const page = await searchIssues(db, { projectIds: [projectId], conditions: [], sort: "date", limit: 10 });
    expect(page.items.map((i) => [i.title, i.eventCount, i.userCount, i.shortId])).toEqual([
      ["other thing", 1, 1, 2],
      ["same thing", 4, 2, 1],
    ]);
    const same = page.items[1];
    expect(same).toMatchObject({
      firstSeen: NOW + 1,
      lastSeen: NOW + 4,
      firstRelease: "r1",
      lastRelease: "r4",
      level: "error",
      lastEventId: hexId("u4"),
    });
    const events = await listIssueEvents(db, { issueId: same?.id ?? -1, limit: 2 });
    expect(events.items.map((e) => e.eventId)).toEqual([hexId("u4"), hexId("u3")]);
    const more = await listIssueEvents(db, { issueId: same?.id ?? -1, limit: 2, cursor: events.nextCursor });
    expect(more.items.map((e) => e.eventId)).toEqual([hexId("u2"), hexId("u1")]);
  });

  test("issue search: text (LIKE wildcards taken literally), level, status, and keyset pagination", async () => {
    const projectId = await createProject(db, "list");
    const msgs = ["Alpha_1 failed", "beta 100% broken", "GAMMA failed", "delta"];
    await enqueueMany(
      db,
      msgs.map((m, i) =>
        row(
          projectId,
          "store",
          Buffer.from(JSON.stringify({ event_id: hexId(`l${i}`), message: m, level: i === 3 ? "info" : "error" })),
          NOW + i,
        ),
      ),
    );
    await drain(db, NOW + 10);
    const search = (conditions: StorageCondition[], limit = 10, cursor: IssueSearchPage["nextCursor"] = null) =>
      searchIssues(db, { projectIds: [projectId], conditions, sort: "date", limit, cursor });
    const titles = async (...conditions: StorageCondition[]) => (await search(conditions)).items.map((i) => i.title);
    const text = (value: string): StorageCondition => ({ kind: "text", value });
    expect(await titles()).toEqual(["delta", "GAMMA failed", "beta 100% broken", "Alpha_1 failed"]);
    expect(await titles(text("FAILED"))).toEqual(["GAMMA failed", "Alpha_1 failed"]);
    expect(await titles(text("100%"))).toEqual(["beta 100% broken"]);
    expect(await titles(text("a_1"))).toEqual(["Alpha_1 failed"]);
    expect(await titles({ kind: "level", values: ["info"], negated: false })).toEqual(["delta"]);
    expect(await titles({ kind: "status", values: ["resolved"], negated: false })).toEqual([]);
    const first = await search([], 3);
    expect(first.items).toHaveLength(3);
    const second = await search([], 3, first.nextCursor);
    expect(second.items.map((i) => i.title)).toEqual(["Alpha_1 failed"]);
    expect(second.nextCursor).toBeNull();
    expect(await searchIssues(db, { projectIds: [], conditions: [], sort: "date", limit: 3 })).toEqual({ items: [], nextCursor: null });
  });

  test("unparseable rows are dropped and counted failed without poisoning the batch; an unreadable event under a valid id is stored empty", async () => {
    const projectId = await createProject(db, "poison");
    await enqueueMany(db, [
      row(projectId, "store", Buffer.from("not json")),
      row(projectId, "envelope", Buffer.from("{broken header\n")),
      row(projectId, "store", Buffer.from("[1,2]")),
      row(projectId, "envelope", Buffer.from(`{"event_id":"${hexId("p1")}"}\n{"type":"event"}\nnot json either`)),
      row(projectId, "store", Buffer.from(JSON.stringify({ event_id: hexId("ok"), message: "fine" }))),
      // PostgreSQL text columns reject NUL; it must not break the batch.
      row(projectId, "store", Buffer.from(JSON.stringify({ event_id: hexId("nul"), message: "nul\u0000inside", release: "r\u00001" }))),
      row(9_999_999, "store", Buffer.from(JSON.stringify({ event_id: hexId("orphan"), message: "no project" }))),
    ]);
    // The unreadable event behind a valid header id was acknowledged by ingest: stored empty, with a note.
    expect(await drain(db, NOW)).toEqual({ events: 3, duplicates: 0, skipped: 0, failed: 4 });
    expect(await queueDepth(db)).toBe(0);
    expect(await getEvent(db, projectId, hexId("ok"))).toBeDefined();
    const empty = await getEvent(db, projectId, hexId("p1"));
    expect((empty?.event.errata as { notes: Array<{ type: string }> } | undefined)?.notes).toContainEqual(
      expect.objectContaining({ type: "invalid_event" }),
    );
    const nul = await getEvent(db, projectId, hexId("nul"));
    expect(nul?.title).toBe("nulinside");
    expect((nul?.event.logentry as { formatted?: string } | undefined)?.formatted).toBe("nul\u0000inside");
  });

  test("crash safety: a claimed batch that is never digested comes back after the lease, stored once", async () => {
    const projectId = await createProject(db, "crash");
    const bodies = [1, 2, 3].map((n) =>
      // Distinct words, not numbers: v2 groups "crash 1" and "crash 2" into one issue.
      row(
        projectId,
        "store",
        Buffer.from(JSON.stringify({ event_id: hexId(`c${n}`), message: `crash ${["one", "two", "three"][n - 1]}` })),
      ),
    );
    await enqueueMany(db, bodies);
    const lease = 60_000;
    const dead = await claimBatch(db, NOW, 10, lease); // the worker "dies" here
    expect(dead).toHaveLength(3);
    expect(await claimBatch(db, NOW + lease - 1, 10, lease)).toHaveLength(0);
    const again = await claimBatch(db, NOW + lease, 10, lease);
    expect(again.map((i) => i.id)).toEqual(dead.map((i) => i.id));
    expect(await digestBatch(db, again, deps(NOW + lease))).toEqual({ events: 3, duplicates: 0, skipped: 0, failed: 0 });
    // The "dead" worker wakes up and finishes late: nothing is counted twice.
    expect(await digestBatch(db, dead, deps(NOW + lease))).toEqual({ events: 0, duplicates: 3, skipped: 0, failed: 0 });
    expect(await countEvents(db, { projectId })).toBe(3);
    expect(await queueDepth(db)).toBe(0);
    for (const n of [1, 2, 3]) {
      const ev = await getEvent(db, projectId, hexId(`c${n}`));
      expect((await getIssue(db, ev?.issueId ?? -1))?.eventCount).toBe(1);
    }
  });

  test("runWorker drains the queue in-process and stops on abort", async () => {
    const projectId = await createProject(db, "loop");
    await enqueueMany(
      db,
      [1, 2, 3, 4, 5].map((n) => row(projectId, "store", Buffer.from(JSON.stringify({ event_id: hexId(`w${n}`), message: "loop" })))),
    );
    const controller = new AbortController();
    let seen = 0;
    const done = runWorker({
      db,
      config: { worker: { batchSize: 2, idlePollMs: 20, leaseMs: 60_000, nice: 0, threads: 1 }, limits: LIMITS },
      log: silentLog,
      signal: controller.signal,
      onBatch: (r) => {
        seen += r.events;
      },
    });
    const deadline = Date.now() + 10_000;
    while (seen < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    controller.abort();
    await done;
    expect(seen).toBe(5);
    expect(await countEvents(db, { projectId })).toBe(5);
  });

  test("a backlog asks for helpers only while ingest in this process is quiet; a helper leaves when idle", async () => {
    const projectId = await createProject(db, "backlog");
    const enqueue = (tag: string) =>
      enqueueMany(
        db,
        Array.from({ length: 10 }, (_, n) =>
          row(projectId, "store", Buffer.from(JSON.stringify({ event_id: hexId(`${tag}${n}`), message: "b" }))),
        ),
      );
    const config = { worker: { batchSize: 2, idlePollMs: 20, leaseMs: 60_000, nice: 0, threads: 2 }, limits: LIMITS };
    const waker = new Waker();
    let ingestBusy = true;
    let asked = 0;
    let seen = 0;
    const controller = new AbortController();
    await enqueue("busy");
    const done = runWorker({
      db,
      config,
      log: silentLog,
      signal: controller.signal,
      waker,
      ingestWakes: true,
      onBacklog: () => {
        asked += 1;
      },
      // Ingest commits between every two batches while busy (what its wake calls report).
      onBatch: (r) => {
        seen += r.events;
        if (ingestBusy) waker.wake();
      },
    });
    while (seen < 10) await new Promise((r) => setTimeout(r, 10));
    expect(asked).toBe(0);
    ingestBusy = false;
    await enqueue("quiet");
    waker.wake();
    while (seen < 20) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    await done;
    expect(asked).toBeGreaterThan(0);

    // A helper ends by itself once there is no work (no abort needed).
    await runWorker({ db, config, log: silentLog, signal: new AbortController().signal, digestOnly: true, idleExitMs: 50 });
    expect(await countEvents(db, { projectId })).toBe(20);
  });
});
