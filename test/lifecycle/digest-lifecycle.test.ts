/**
 * The issue lifecycle through the real digest on both databases: resolutions and regressions
 * (release ordering by semver and by creation time), ignore conditions and unignoring, aging,
 * and the activity log with its actors.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runLifecycleSweep } from "../../src/pipeline/retention";
import { dialects } from "../helpers/test-db";
import { codeOf, createWorld, DAY, MINUTE, type World } from "./helpers";

describe.each(await dialects())("issue lifecycle through the digest on %s", (dialect) => {
  let w: World;
  beforeAll(async () => {
    w = await createWorld(dialect);
  });
  afterAll(async () => w?.close());

  const tick = (ms = 1000) => {
    w.clock.now += ms;
  };
  const get = async (id: number) => w.services.issues.get(w.owner, "acme", id);
  const kinds = async (id: number) => (await w.services.issueActions.activity(w.owner, "acme", id)).map((a) => a.kind).reverse();

  test("a new issue records first-seen-in-release; resolve now → next event regresses it, by Errata", async () => {
    await w.send({ message: "resolve-now", release: "1.0.0" });
    const id = await w.issueOf("resolve-now");
    expect(await kinds(id)).toEqual(["first_seen_in_release"]);
    tick();
    const resolved = await w.services.issueActions.update(w.member, "acme", id, { status: "resolved" });
    expect(resolved).toMatchObject({ status: "resolved", substatus: "resolved", statusDetails: {}, resolution: { kind: "now" } });
    tick();
    await w.send({ message: "resolve-now", release: "1.0.0" });
    expect(await get(id)).toMatchObject({ status: "unresolved", substatus: "regressed", resolution: null, count: 2 });
    const activity = await w.services.issueActions.activity(w.owner, "acme", id);
    expect(activity.map((a) => [a.kind, a.actor?.email ?? null])).toEqual([
      ["regression", null],
      ["state_change", "member@example.com"],
      ["first_seen_in_release", null],
    ]);
    expect(activity[0]?.data).toMatchObject({
      release: "1.0.0",
      resolution: { kind: "now" },
      eventId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(await w.services.issues.list(w.owner, "acme", { query: "is:regressed" })).toMatchObject({ items: [{ id }] });
  });

  test("resolved in 1.2.0: events from 1.1.0 and 1.2.0 keep it resolved, 1.3.0 regresses it", async () => {
    await w.send({ message: "in-release", release: "1.1.0" });
    const id = await w.issueOf("in-release");
    tick();
    const r = await w.services.issueActions.update(w.member, "acme", id, { status: "resolved", statusDetails: { inRelease: "1.2.0" } });
    expect(r.statusDetails).toEqual({ inRelease: "1.2.0" });
    tick();
    await w.send({ message: "in-release", release: "1.1.0" }, { message: "in-release", release: "1.2.0" }, { message: "in-release" });
    expect((await get(id)).status).toBe("resolved");
    tick();
    await w.send({ message: "in-release", release: "1.3.0" });
    expect(await get(id)).toMatchObject({ status: "unresolved", substatus: "regressed", count: 5 });
  });

  test("release order is numeric: resolved in 1.9.0, an event from 1.10.0 regresses", async () => {
    await w.send({ message: "numeric", release: "1.9.0" });
    const id = await w.issueOf("numeric");
    tick();
    await w.services.issueActions.update(w.member, "acme", id, { status: "resolved", statusDetails: { inRelease: "1.9.0" } });
    tick();
    await w.send({ message: "numeric", release: "1.2.0" });
    expect((await get(id)).status).toBe("resolved");
    await w.send({ message: "numeric", release: "1.10.0" });
    expect((await get(id)).substatus).toBe("regressed");
  });

  test("non-semver releases are ordered by when Errata first saw them, not by name", async () => {
    await w.send({ message: "by-time-other", release: "build-ccc" });
    tick();
    await w.send({ message: "by-time", release: "build-bbb" });
    tick();
    await w.send({ message: "by-time-other", release: "build-aaa" });
    const id = await w.issueOf("by-time");
    tick();
    await w.services.issueActions.update(w.member, "acme", id, { status: "resolved", statusDetails: { inRelease: "build-bbb" } });
    tick();
    // build-ccc sorts after build-bbb but was seen before it: still resolved.
    await w.send({ message: "by-time", release: "build-ccc" });
    expect((await get(id)).status).toBe("resolved");
    // build-aaa sorts before build-bbb but was seen after it: a regression.
    await w.send({ message: "by-time", release: "build-aaa" });
    expect((await get(id)).substatus).toBe("regressed");
  });

  test("in the next release: events from the current latest release do not regress; a newer one does", async () => {
    await w.send({ message: "next-release", release: "2.0.0" });
    const id = await w.issueOf("next-release");
    tick();
    const r = await w.services.issueActions.update(w.member, "acme", id, { status: "resolvedInNextRelease" });
    expect(r).toMatchObject({ statusDetails: { inNextRelease: true }, resolution: { kind: "in_next_release", release: "2.0.0" } });
    tick();
    await w.send({ message: "next-release", release: "2.0.0" }, { message: "next-release", release: "1.10.0" });
    expect((await get(id)).status).toBe("resolved");
    await w.send({ message: "next-release", release: "2.0.1" });
    expect((await get(id)).substatus).toBe("regressed");
  });

  test("ignore until 3 more events → unignored by the third, with an unignored activity", async () => {
    await w.send({ message: "ignore-count" });
    const id = await w.issueOf("ignore-count");
    const r = await w.services.issueActions.update(w.member, "acme", id, { status: "ignored", statusDetails: { ignoreCount: 3 } });
    expect(r).toMatchObject({ status: "ignored", substatus: "archived_until_condition_met", statusDetails: { ignoreCount: 3 } });
    tick();
    await w.send({ message: "ignore-count" }, { message: "ignore-count" });
    expect((await get(id)).status).toBe("ignored");
    await w.send({ message: "ignore-count" });
    expect(await get(id)).toMatchObject({ status: "unresolved", substatus: "ongoing", ignore: null });
    const [last] = await w.services.issueActions.activity(w.owner, "acme", id);
    expect(last).toMatchObject({ kind: "unignored", actor: null, data: { reason: "events" } });
  });

  test("ignore for 60 minutes: an earlier event keeps it ignored; the sweep unignores it when time is up", async () => {
    await w.send({ message: "ignore-time" });
    const id = await w.issueOf("ignore-time");
    await w.services.issueActions.update(w.member, "acme", id, { status: "ignored", statusDetails: { ignoreDuration: 60 } });
    tick(59 * MINUTE);
    await w.send({ message: "ignore-time" });
    expect((await get(id)).status).toBe("ignored");
    expect(
      await runLifecycleSweep(w.db, {
        now: w.clock.now,
        lifecycle: { ongoingAfterMs: 7 * DAY },
        batchSize: 10,
        yieldBetween: async () => {},
      }),
    ).toBe(0);
    tick(2 * MINUTE);
    await runLifecycleSweep(w.db, {
      now: w.clock.now,
      lifecycle: { ongoingAfterMs: 7 * DAY },
      batchSize: 10,
      yieldBetween: async () => {},
    });
    expect((await get(id)).status).toBe("unresolved");
    expect((await w.services.issueActions.activity(w.owner, "acme", id))[0]).toMatchObject({ kind: "unignored", data: { reason: "time" } });
  });

  test("ignore until an event after a time: the event itself unignores", async () => {
    await w.send({ message: "ignore-time-event" });
    const id = await w.issueOf("ignore-time-event");
    await w.services.issueActions.update(w.member, "acme", id, { status: "ignored", statusDetails: { ignoreDuration: 5 } });
    tick(6 * MINUTE);
    await w.send({ message: "ignore-time-event" });
    expect((await get(id)).status).toBe("unresolved");
  });

  test("ignore until 2 users within 60 minutes: repeat users and users outside the window do not count", async () => {
    await w.send({ message: "ignore-users", user: "u0" });
    const id = await w.issueOf("ignore-users");
    tick();
    await w.services.issueActions.update(w.member, "acme", id, {
      status: "ignored",
      statusDetails: { ignoreUserCount: 2, ignoreUserWindow: 60 },
    });
    tick();
    await w.send({ message: "ignore-users", user: "u1" }, { message: "ignore-users", user: "u1" }, { message: "ignore-users" });
    expect((await get(id)).status).toBe("ignored");
    tick(61 * MINUTE);
    // u1 is now outside the window: one user in the window so far.
    await w.send({ message: "ignore-users", user: "u2" });
    expect((await get(id)).status).toBe("ignored");
    tick(5 * MINUTE);
    await w.send({ message: "ignore-users", user: "u3" });
    expect(await get(id)).toMatchObject({ status: "unresolved", userCount: 4 });
    expect((await w.services.issueActions.activity(w.owner, "acme", id))[0]).toMatchObject({
      kind: "unignored",
      data: { reason: "users" },
    });
  });

  test("ignore forever, then unresolve by hand", async () => {
    await w.send({ message: "forever" });
    const id = await w.issueOf("forever");
    await w.services.issueActions.update(w.member, "acme", id, { status: "ignored" });
    tick(400 * DAY);
    await w.send({ message: "forever" });
    expect(await get(id)).toMatchObject({ status: "ignored", substatus: "archived_forever" });
    const r = await w.services.issueActions.update(w.member, "acme", id, { status: "unresolved" });
    expect(r).toMatchObject({ status: "unresolved", substatus: "ongoing", ignore: null });
  });

  test("new → ongoing after 7 days, by the sweep, recorded as a system state change", async () => {
    await w.send({ message: "aging" });
    const id = await w.issueOf("aging");
    expect((await get(id)).substatus).toBe("new");
    tick(7 * DAY + 1);
    const n = await runLifecycleSweep(w.db, {
      now: w.clock.now,
      lifecycle: { ongoingAfterMs: 7 * DAY },
      batchSize: 2,
      yieldBetween: async () => {},
    });
    expect(n).toBeGreaterThanOrEqual(1);
    expect((await get(id)).substatus).toBe("ongoing");
    expect((await w.services.issueActions.activity(w.owner, "acme", id))[0]).toMatchObject({
      kind: "state_change",
      actor: null,
      data: { reason: "age" },
    });
    // Nothing left to do on a second run.
    expect(
      await runLifecycleSweep(w.db, {
        now: w.clock.now,
        lifecycle: { ongoingAfterMs: 7 * DAY },
        batchSize: 2,
        yieldBetween: async () => {},
      }),
    ).toBe(0);
  });

  test("assignment by email (case-insensitive), unassignment, and strict validation", async () => {
    await w.send({ message: "no-release-project-issue" });
    const id = await w.issueOf("no-release-project-issue");
    expect(
      await codeOf(w.services.issueActions.update(w.member, "acme", id, { status: "ignored", statusDetails: { ignoreCount: 0 } })),
    ).toBe("validation_failed");
    expect(await codeOf(w.services.issueActions.update(w.member, "acme", id, { assignedTo: "nobody@example.com" }))).toBe(
      "validation_failed",
    );
    const assigned = await w.services.issueActions.update(w.member, "acme", id, { assignedTo: "OWNER@example.com" });
    expect(assigned.assignee).toMatchObject({ email: "owner@example.com" });
    expect(assigned.assigneeUserId).toBe(w.owner.userId);
    const unassigned = await w.services.issueActions.update(w.member, "acme", id, { assignedTo: null });
    expect(unassigned.assignee).toBeNull();
    expect((await w.services.issueActions.activity(w.owner, "acme", id)).slice(0, 2).map((a) => a.data.assignee ?? null)).toEqual([
      null,
      expect.objectContaining({ email: "owner@example.com" }),
    ]);
  });
});
