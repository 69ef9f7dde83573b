/**
 * Merge and delete through the services on both databases, with the role rules of SPEC §6:
 * counts stay exact, later events of a merged hash land in the survivor, a deleted issue's
 * fingerprint starts a new issue.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { countEvents } from "../../src/storage/events/events";
import { getIssue, listIssueHashes } from "../../src/storage/issues/issues";
import { dialects } from "../helpers/test-db";
import { codeOf, createWorld, type World } from "./helpers";

describe.each(await dialects())("merge and delete on %s", (dialect) => {
  let w: World;
  beforeAll(async () => {
    w = await createWorld(dialect);
  });
  afterAll(async () => w?.close());

  test("merge: the oldest survives with every hash, event and user; counts add up; later events land in it", async () => {
    await w.send({ message: "merge-a", user: "alice", release: "1.0.0" }, { message: "merge-a", user: "bob" });
    w.clock.now += 1000;
    await w.send({ message: "merge-b", user: "bob" }, { message: "merge-b", user: "carol" }, { message: "merge-b" });
    w.clock.now += 1000;
    await w.send({ message: "merge-c", release: "2.0.0" });
    const [a, b, c] = [await w.issueOf("merge-a"), await w.issueOf("merge-b"), await w.issueOf("merge-c")];
    await w.services.issueActions.comment(w.member, "acme", b, "seen this before");
    const beforeC = await getIssue(w.db, c);

    expect(await codeOf(w.services.issueActions.merge(w.viewer, "acme", [a, b, c]))).toBe("forbidden");
    expect(await codeOf(w.services.issueActions.merge(w.member, "acme", [a]))).toBe("validation_failed");
    expect(await codeOf(w.services.issueActions.merge(w.member, "acme", [a, 999_999]))).toBe("not_found");

    const r = await w.services.issueActions.merge(w.member, "acme", [c, b, a]);
    expect(r).toEqual({ primaryId: a, mergedIds: expect.arrayContaining([b, c]) });
    const merged = await w.services.issues.get(w.owner, "acme", a);
    expect(merged).toMatchObject({
      count: 6,
      userCount: 3,
      firstRelease: "1.0.0",
      lastRelease: "2.0.0",
      lastEventId: beforeC?.lastEventId,
    });
    expect(merged.lastSeen).toBe(beforeC?.lastSeen);
    expect(await getIssue(w.db, b)).toBeUndefined();
    expect(await getIssue(w.db, c)).toBeUndefined();
    expect(await countEvents(w.db, { issueId: a })).toBe(6);
    expect((await listIssueHashes(w.db, a)).length).toBe(3);
    // The trend and sparklines follow: the survivor's hourly buckets hold all six events.
    const hourly = await w.db.kysely.selectFrom("issue_hourly").select(["issue_id", "count"]).where("issue_id", "in", [a, b, c]).execute();
    expect(hourly.every((h) => Number(h.issue_id) === a)).toBe(true);
    expect(hourly.reduce((n, h) => n + Number(h.count), 0)).toBe(6);

    const activity = await w.services.issueActions.activity(w.owner, "acme", a);
    expect(activity[0]).toMatchObject({ kind: "merge", actor: { email: "member@example.com" }, data: { merged: expect.any(Array) } });
    expect(activity.some((x) => x.kind === "comment" && x.data.text === "seen this before")).toBe(true);

    w.clock.now += 1000;
    await w.send({ message: "merge-b", user: "dave" }, { message: "merge-c", user: "alice" });
    expect(await w.services.issues.get(w.owner, "acme", a)).toMatchObject({ count: 8, userCount: 4 });
    expect(await w.issueOf("merge-b")).toBe(a);
  });

  test("delete: admin only; the issue and its events go; the next event of the fingerprint starts a new issue", async () => {
    await w.send({ message: "delete-me", user: "u1" }, { message: "delete-me", user: "u2" });
    const id = await w.issueOf("delete-me");
    await w.services.issueActions.comment(w.member, "acme", id, "about to go");
    const shortId = (await getIssue(w.db, id))?.shortId;

    expect(await codeOf(w.services.issueActions.delete(w.viewer, "acme", [id]))).toBe("forbidden");
    expect(await codeOf(w.services.issueActions.delete(w.member, "acme", [id]))).toBe("forbidden");
    expect(await w.services.issueActions.delete(w.admin, "acme", [id])).toEqual({ deletedIds: [id] });
    expect(await getIssue(w.db, id)).toBeUndefined();
    expect(await countEvents(w.db, { issueId: id })).toBe(0);
    expect(await codeOf(w.services.issues.get(w.owner, "acme", id))).toBe("not_found");
    const left = await w.db.kysely.selectFrom("activity").select("id").where("issue_id", "=", id).execute();
    expect(left).toEqual([]);

    await w.send({ message: "delete-me", user: "u1" });
    const again = await w.issueOf("delete-me");
    expect(again).not.toBe(id);
    expect(await w.services.issues.get(w.owner, "acme", again)).toMatchObject({ count: 1, userCount: 1, substatus: "new" });
    expect((await getIssue(w.db, again))?.shortId).not.toBe(shortId);
  });

  test("roles and scopes: viewers and read-only tokens cannot mutate; members can; everyone reads activity", async () => {
    await w.send({ message: "roles" });
    const id = await w.issueOf("roles");
    expect(await codeOf(w.services.issueActions.update(w.viewer, "acme", id, { status: "resolved" }))).toBe("forbidden");
    expect(await codeOf(w.services.issueActions.comment(w.viewer, "acme", id, "hi"))).toBe("forbidden");
    expect(await codeOf(w.services.issueActions.update({ ...w.owner, scopes: ["event:read"] }, "acme", id, { status: "resolved" }))).toBe(
      "forbidden",
    );
    expect(
      (await w.services.issueActions.update({ ...w.member, scopes: ["event:write"] }, "acme", id, { status: "resolved" })).status,
    ).toBe("resolved");
    expect(await codeOf(w.services.issueActions.comment(w.member, "acme", id, "   "))).toBe("validation_failed");
    expect((await w.services.issueActions.activity(w.viewer, "acme", id)).length).toBeGreaterThan(0);
    expect(await codeOf(w.services.issueActions.update(w.member, "other-org", id, { status: "resolved" }))).toBe("not_found");
  });

  test("bulk update applies to every issue or none", async () => {
    await w.send({ message: "bulk-first" }, { message: "bulk-second" });
    const ids = [await w.issueOf("bulk-first"), await w.issueOf("bulk-second")];
    expect(await codeOf(w.services.issueActions.bulkUpdate(w.member, "acme", [...ids, 999_999], { status: "ignored" }))).toBe("not_found");
    expect((await getIssue(w.db, ids[0] as number))?.status).toBe("unresolved");
    expect(
      await w.services.issueActions.bulkUpdate(w.member, "acme", ids, { status: "ignored", statusDetails: { ignoreUserCount: 10 } }),
    ).toEqual({ ids });
    for (const id of ids) expect((await getIssue(w.db, id))?.ignore).toMatchObject({ kind: "until_users", count: 10 });
  });
});
