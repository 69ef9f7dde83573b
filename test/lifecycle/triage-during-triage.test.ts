/**
 * Issue 39, item 3 (task 39d): two triage operations on the same issues at once. A merge or a
 * delete runs in several transactions (chunks of events); the test pauses one between two chunks
 * (the services' `betweenChunks` hook, chunks of 2 events), runs a second operation on the same
 * issues, lets the first go on, and checks that every stored event belongs to a live issue and
 * every issue's count, users, hourly series and daily rollup equal its stored events
 * (test/helpers/issue-invariants.ts). The second operation answers `conflict` naming what is in
 * progress, except what cannot hurt (a status change of the issue a merge keeps). The digest is
 * never held up: events arriving for an issue being merged or deleted are stored meanwhile.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createLogger } from "../../src/log";
import { finishInterruptedTriage } from "../../src/pipeline/retention";
import { getIssue, listIssueHashes } from "../../src/storage/issues/issues";
import type { TriageHooks } from "../../src/storage/issues/triage-runs";
import { enqueueMany } from "../../src/storage/queue/queue";
import { issueInvariantViolations } from "../helpers/issue-invariants";
import { dialects } from "../helpers/test-db";
import { drain, hexId } from "../pipeline/helpers";
import { createWorld, type World } from "./helpers";

const silent = createLogger("silent");

type Operation = "merge" | "delete";
type Outcome<T> = { ok: true; value: T } | { ok: false; error: { code?: string; message: string } };

let seq = 0;

describe.each(await dialects())("triage during triage on %s", (dialect) => {
  let w: World;
  /** the next merge or delete to pause after its first chunk, with the gate it waits at */
  let pending: { operation: Operation; reached: () => void; go: Promise<void> } | undefined;
  const hooks: TriageHooks = {
    chunkSize: 2,
    async betweenChunks(step) {
      const p = pending;
      if (!p || p.operation !== step.operation) return;
      pending = undefined;
      p.reached();
      await p.go;
    },
  };

  beforeAll(async () => {
    w = await createWorld(dialect, {}, { triageHooks: hooks });
  });
  afterAll(async () => w?.close());

  const newProject = async (name: string) =>
    (await w.services.operator.createProject({ orgSlug: "acme", name, platform: "javascript" })).project.id;

  /** Stores events through the real digest (message → issue, user → user count). */
  async function send(projectId: number, events: Array<{ message: string; user?: string }>) {
    await enqueueMany(
      w.db,
      events.map((e) => {
        seq += 1;
        const body = {
          event_id: hexId(`triage-during-triage:${seq}`),
          platform: "javascript",
          level: "error",
          timestamp: w.clock.now / 1000,
          exception: { values: [{ type: "TriageError", value: e.message }] },
          ...(e.user ? { user: { id: e.user } } : {}),
        };
        return {
          projectId,
          keyId: 1,
          receivedAt: w.clock.now,
          clientIp: null,
          kind: "store" as const,
          body: Buffer.from(JSON.stringify(body)),
        };
      }),
    );
    const r = await drain(w.db, w.clock.now);
    if (r.failed > 0) throw new Error(`digest failed for ${r.failed} events`);
  }

  /** `n` events of one message, users u0…u(n-1) prefixed by the message; returns its issue. */
  async function issueWith(projectId: number, message: string, n: number): Promise<number> {
    await send(
      projectId,
      Array.from({ length: n }, (_, i) => ({ message, user: `${message}-u${i % 3}` })),
    );
    const ids = await issuesOf(projectId, message);
    if (ids.length !== 1) throw new Error(`expected one issue for ${message}, found ${ids.length}`);
    return ids[0] as number;
  }

  async function issuesOf(projectId: number, message: string): Promise<number[]> {
    const rows = await w.db.kysely
      .selectFrom("events")
      .select("issue_id")
      .distinct()
      .where("project_id", "=", projectId)
      .where("title", "like", `%${message}`)
      .execute();
    return rows.map((r) => Number(r.issue_id)).sort((a, b) => a - b);
  }

  function outcome<T>(p: Promise<T>): Promise<Outcome<T>> {
    return p.then(
      (value) => ({ ok: true as const, value }),
      (e: { code?: string; message: string }) => ({ ok: false as const, error: { code: e.code, message: e.message } }),
    );
  }

  /** Starts `run` (a merge or delete) and resolves once it committed its first chunk and waits. */
  async function paused<T>(operation: Operation, run: () => Promise<T>) {
    let reached!: () => void;
    const atPause = new Promise<void>((r) => {
      reached = r;
    });
    let go!: () => void;
    pending = { operation, reached, go: new Promise<void>((r) => (go = r)) };
    const done = outcome(run());
    const first = await Promise.race([atPause.then(() => "paused" as const), done.then(() => "finished" as const)]);
    if (first !== "paused") throw new Error(`the ${operation} finished without pausing: ${JSON.stringify(await done)}`);
    return {
      /** lets it go on and resolves with how it ended */
      finish: () => {
        go();
        return done;
      },
    };
  }

  const invariants = (projectId: number) => issueInvariantViolations(w.db.kysely, [projectId]);

  test("deleting the survivor while a merge moves events into it", async () => {
    const p = await newProject("delete-survivor");
    const a = await issueWith(p, "ds-a", 3);
    const b = await issueWith(p, "ds-b", 5);
    const merge = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b]));
    const del = await outcome(w.services.issueActions.delete(w.admin, "acme", [a]));
    const merged = await merge.finish();

    expect(await invariants(p)).toEqual([]);
    expect(del).toMatchObject({ ok: false, error: { code: "conflict", message: expect.stringMatching(/being merged/) } });
    expect(merged).toEqual({ ok: true, value: { primaryId: a, mergedIds: [b] } });
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 8 });
    // Once the merge is over, the delete goes through.
    expect(await w.services.issueActions.delete(w.admin, "acme", [a])).toEqual({ deletedIds: [a] });
    expect(await invariants(p)).toEqual([]);
  });

  test("deleting a merged-away issue while its events move", async () => {
    const p = await newProject("delete-source");
    const a = await issueWith(p, "dm-a", 2);
    const b = await issueWith(p, "dm-b", 5);
    const merge = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b]));
    const del = await outcome(w.services.issueActions.delete(w.admin, "acme", [b]));
    const merged = await merge.finish();

    expect(await invariants(p)).toEqual([]);
    expect(del).toMatchObject({
      ok: false,
      error: { code: "conflict", message: expect.stringContaining(`Issue ${b} is being merged into issue ${a}`) },
    });
    expect(merged.ok).toBe(true);
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 7 });
  });

  test("two merges sharing an issue; events keep arriving for both meanwhile", async () => {
    const p = await newProject("merge-merge");
    const a = await issueWith(p, "mm-a", 2);
    const b = await issueWith(p, "mm-b", 5);
    const c = await issueWith(p, "mm-c", 3);
    const d = await issueWith(p, "mm-d", 1);
    const first = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b]));
    // The digest is not held up by the merge: new events of both issues are stored now.
    w.clock.now += 1000;
    await send(p, [{ message: "mm-b", user: "late-1" }, { message: "mm-a", user: "late-2" }, { message: "mm-c" }]);
    const sharedSource = await outcome(w.services.issueActions.merge(w.member, "acme", [c, b], { primaryId: c }));
    const sharedSurvivor = await outcome(w.services.issueActions.merge(w.member, "acme", [a, d]));
    const merged = await first.finish();

    expect(await invariants(p)).toEqual([]);
    expect(sharedSource).toMatchObject({
      ok: false,
      error: { code: "conflict", message: expect.stringContaining(`Issue ${b} is being merged`) },
    });
    expect(sharedSurvivor).toMatchObject({
      ok: false,
      error: { code: "conflict", message: expect.stringContaining(`being merged into issue ${a}`) },
    });
    expect(merged).toEqual({ ok: true, value: { primaryId: a, mergedIds: [b] } });
    expect(await issuesOf(p, "mm-b")).toEqual([a]);
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 9 });
    expect(await getIssue(w.db, c)).toMatchObject({ eventCount: 4 });
  });

  test("a status change during a merge: refused for the issue going away, applied to the one kept", async () => {
    const p = await newProject("status-merge");
    const a = await issueWith(p, "sm-a", 2);
    const b = await issueWith(p, "sm-b", 5);
    const merge = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b]));
    const onSource = await outcome(w.services.issueActions.bulkUpdate(w.member, "acme", [a, b], { status: "ignored" }));
    const onSurvivor = await outcome(w.services.issueActions.bulkUpdate(w.member, "acme", [a], { status: "resolved" }));
    const merged = await merge.finish();

    expect(await invariants(p)).toEqual([]);
    expect(onSource).toMatchObject({
      ok: false,
      error: { code: "conflict", message: expect.stringContaining(`Issue ${b} is being merged into issue ${a}`) },
    });
    expect(onSurvivor).toEqual({ ok: true, value: { ids: [a] } });
    expect(merged.ok).toBe(true);
    expect(await getIssue(w.db, a)).toMatchObject({ status: "resolved", eventCount: 7 });
  });

  test("unmerging a hash of an issue whose merge is in flight", async () => {
    const p = await newProject("unmerge-merge");
    const a = await issueWith(p, "um-a", 2);
    const b1 = await issueWith(p, "um-b1", 3);
    const b2 = await issueWith(p, "um-b2", 3);
    // b1 gets two hashes, b1's and b2's, and a user on events of both.
    await send(p, [{ message: "um-b2", user: "um-b1-u0" }]);
    const [hash] = (await listIssueHashes(w.db, b2)).map((h) => h.hash);
    await w.services.issueActions.merge(w.member, "acme", [b1, b2]);
    const merge = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b1]));
    const split = await outcome(w.services.issueUnmerge.unmerge(w.member, "acme", b1, hash ?? ""));
    const merged = await merge.finish();

    expect(await invariants(p)).toEqual([]);
    expect(split).toMatchObject({
      ok: false,
      error: { code: "conflict", message: expect.stringContaining(`Issue ${b1} is being merged`) },
    });
    expect(merged.ok).toBe(true);
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 9 });
  });

  test("a delete while another deletes the same issue", async () => {
    const p = await newProject("delete-delete");
    const a = await issueWith(p, "dd-a", 5);
    const c = await issueWith(p, "dd-c", 2);
    const first = await paused("delete", () => w.services.issueActions.delete(w.admin, "acme", [a]));
    // Events of the issue being deleted are still stored (and go with it).
    await send(p, [{ message: "dd-a" }]);
    const again = await outcome(w.services.issueActions.delete(w.owner, "acme", [c, a]));
    const resolve = await outcome(w.services.issueActions.update(w.member, "acme", a, { status: "resolved" }));
    const deleted = await first.finish();

    expect(await invariants(p)).toEqual([]);
    expect(again).toMatchObject({
      ok: false,
      error: { code: "conflict", message: expect.stringContaining(`Issue ${a} is being deleted`) },
    });
    expect(resolve).toMatchObject({ ok: false, error: { code: "conflict" } });
    expect(deleted).toEqual({ ok: true, value: { deletedIds: [a] } });
    expect(await getIssue(w.db, a)).toBeUndefined();
    // The refused delete changed nothing: the other issue is still there.
    expect(await getIssue(w.db, c)).toMatchObject({ eventCount: 2 });
  });

  test("a claim whose operation stalled past its lease is taken over and the merge finished", async () => {
    const p = await newProject("stalled-merge");
    const a = await issueWith(p, "st-a", 2);
    const b = await issueWith(p, "st-b", 5);
    const stalled = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b]));
    // As if its process died: it never goes on, and the lease runs out.
    w.clock.now += 10 * 60_000;
    const resolve = await outcome(w.services.issueActions.update(w.member, "acme", a, { status: "resolved" }));
    expect(resolve.ok).toBe(true);
    // The interrupted merge was finished first: every event of b is under a, counted there.
    expect(await getIssue(w.db, b)).toBeUndefined();
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 7, status: "resolved" });
    expect(await invariants(p)).toEqual([]);
    // The stalled one wakes up to find its work done by another: it says so and changes nothing.
    const late = await stalled.finish();
    expect(late).toMatchObject({ ok: false, error: { code: "conflict" } });
    expect(await invariants(p)).toEqual([]);
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 7 });
  });

  test("a stalled merge nobody touches again is finished by the worker's maintenance loop", async () => {
    const p = await newProject("stalled-untouched");
    const a = await issueWith(p, "su-a", 2);
    const b = await issueWith(p, "su-b", 5);
    const stalled = await paused("merge", () => w.services.issueActions.merge(w.member, "acme", [a, b]));
    // Half-way: some of b's events are under a, still counted on b.
    expect(await invariants(p)).not.toEqual([]);
    // Within its lease the sweep leaves the run alone.
    expect(await finishInterruptedTriage(w.db, () => w.clock.now, silent)).toBe(0);
    w.clock.now += 10 * 60_000;
    expect(await finishInterruptedTriage(w.db, () => w.clock.now, silent)).toBe(1);
    expect(await getIssue(w.db, b)).toBeUndefined();
    expect(await getIssue(w.db, a)).toMatchObject({ eventCount: 7 });
    expect(await invariants(p)).toEqual([]);
    expect(await finishInterruptedTriage(w.db, () => w.clock.now, silent)).toBe(0);
    expect(await stalled.finish()).toMatchObject({ ok: false, error: { code: "conflict" } });
  });
});
