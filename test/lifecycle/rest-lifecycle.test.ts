/**
 * The lifecycle over Sentry's REST API against the real server on both databases: PUT/DELETE on
 * an issue, bulk PUT (update and merge) and DELETE, comments and activities, role checks
 * (viewer → 403, delete needs admin), strict validation, and a regression through the worker.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDb } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { findOrgBySlug, upsertMember } from "../../src/storage/orgs/orgs";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

type Json = Record<string, unknown>;

describe.each(await dialects())("issue lifecycle REST on %s", (dialect) => {
  let server: TestServer;
  let dsn: URL;
  const tokens: Record<string, string> = {};

  const api = async (method: string, path: string, who: string, body?: unknown) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${tokens[who]}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      body: (text ? JSON.parse(text) : null) as Json & { error?: { code: string; fields?: Array<{ field: string }> } },
    };
  };

  let sent = 0;
  /** Sends an event through the DSN (store endpoint) and waits until its issue exists. */
  const send = async (message: string, release?: string): Promise<string> => {
    sent += 1;
    const eventId = `${sent.toString(16).padStart(8, "0")}${"0".repeat(24)}`;
    const res = await fetch(`${dsn.origin}/api${dsn.pathname}/store/`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
      body: JSON.stringify({
        event_id: eventId,
        platform: "javascript",
        exception: { values: [{ type: "RestError", value: message }] },
        ...(release ? { release } : {}),
      }),
    });
    expect(res.status).toBe(200);
    const ev = await eventually(
      async () => {
        const r = await api("GET", `/api/0/projects/acme/web/events/${eventId}/`, "owner");
        return r.status === 200 ? r.body : undefined;
      },
      30_000,
      `event ${eventId}`,
    );
    return ev.groupID as string;
  };

  beforeAll(async () => {
    server = await startServer({ dialect });
    for (const who of ["owner", "member", "viewer"]) {
      await server.cli("user", "create", "--email", `${who}@example.com`, "--password", "correct horse battery", "--org", "acme");
      tokens[who] = await server.cli(
        "token",
        "create",
        "--email",
        `${who}@example.com`,
        "--scopes",
        "org:read,project:read,event:read,event:write",
      );
    }
    tokens.readonly = await server.cli("token", "create", "--email", "owner@example.com", "--scopes", "event:read");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));
    // Roles other than owner come from storage (no CLI for them yet).
    const db = openDb(server.db.config);
    try {
      const org = await findOrgBySlug(db, "acme");
      const ids = await db.kysely
        .selectFrom("members")
        .select(["user_id"])
        .where("org_id", "=", org?.id ?? 0)
        .orderBy("created_at")
        .execute();
      await writeTx(db, async (tx) => {
        await upsertMember(tx, { orgId: org?.id ?? 0, userId: ids[1]?.user_id ?? "", role: "member", now: Date.now() });
        await upsertMember(tx, { orgId: org?.id ?? 0, userId: ids[2]?.user_id ?? "", role: "viewer", now: Date.now() });
      });
    } finally {
      await db.close();
    }
  });
  afterAll(async () => server?.stop());

  test("PUT resolves in a release; a viewer and a read-only token get 403; bad bodies get 400 with fields", async () => {
    const id = await send("rest resolve", "1.1.0");
    const path = `/api/0/organizations/acme/issues/${id}/`;
    expect(await api("PUT", path, "viewer", { status: "resolved" })).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    expect(await api("PUT", path, "readonly", { status: "resolved" })).toMatchObject({
      status: 403,
      body: { error: { code: "forbidden" } },
    });
    const bad = await api("PUT", path, "member", { status: "resolved", statusDetails: { ignoreCount: 5 } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "validation_failed", fields: [{ field: "statusDetails.ignoreCount" }] });
    expect((await api("PUT", "/api/0/organizations/acme/issues/99999999/", "member", { status: "resolved" })).status).toBe(404);

    const ok = await api("PUT", path, "member", {
      status: "resolved",
      statusDetails: { inRelease: "1.2.0" },
      assignedTo: "owner@example.com",
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      id,
      status: "resolved",
      substatus: null,
      statusDetails: { inRelease: "1.2.0" },
      assignedTo: { type: "user", email: "owner@example.com" },
    });
    expect((await api("GET", path, "viewer")).body).toMatchObject({ status: "resolved", statusDetails: { inRelease: "1.2.0" } });
    // The project's issue list (what sentry-cli and scripts read) says the same.
    const listed = await api("GET", "/api/0/projects/acme/web/issues/?query=is:resolved", "viewer");
    expect((listed.body as unknown as Json[]).find((i) => i.id === id)).toMatchObject({
      statusDetails: { inRelease: "1.2.0" },
      assignedTo: { type: "user", email: "owner@example.com" },
    });

    // An event from an older release keeps it resolved; a later one regresses it (the worker does it).
    await send("rest resolve", "1.1.0");
    expect((await api("GET", path, "owner")).body.status).toBe("resolved");
    await send("rest resolve", "1.3.0");
    expect((await api("GET", path, "owner")).body).toMatchObject({ status: "unresolved", substatus: "regressed", count: "3" });
    const activity = await api("GET", `${path}activities/`, "viewer");
    expect((activity.body.activity as Json[]).map((a) => a.type)).toEqual([
      "set_regression",
      "assigned",
      "set_resolved_in_release",
      "first_seen",
    ]);
  });

  test("comments: members post, viewers read but cannot post", async () => {
    const id = await send("rest comments");
    const path = `/api/0/organizations/acme/issues/${id}/comments/`;
    expect((await api("POST", path, "viewer", { text: "hello" })).status).toBe(403);
    expect((await api("POST", path, "member", { text: "" })).body.error?.code).toBe("validation_failed");
    const posted = await api("POST", path, "member", { text: "Looking into it" });
    expect(posted).toMatchObject({
      status: 201,
      body: { type: "note", data: { text: "Looking into it" }, user: { email: "member@example.com" } },
    });
    expect((await api("GET", path, "viewer")).body).toMatchObject([{ type: "note", data: { text: "Looking into it" } }]);
  });

  test("bulk PUT on the project endpoint ignores several issues; {merge: 1} merges into the oldest", async () => {
    const a = await send("rest bulk a");
    const b = await send("rest bulk b");
    const bulk = await api("PUT", `/api/0/projects/acme/web/issues/?id=${a}&id=${b}`, "member", {
      status: "ignored",
      statusDetails: { ignoreCount: 100, ignoreWindow: 60 },
    });
    expect(bulk).toMatchObject({ status: 200, body: { status: "ignored", statusDetails: { ignoreCount: 100, ignoreWindow: 60 } } });
    for (const id of [a, b]) {
      expect((await api("GET", `/api/0/organizations/acme/issues/${id}/`, "owner")).body).toMatchObject({
        status: "ignored",
        statusDetails: { ignoreCount: 100 },
      });
    }
    // Without ids the selection is a search (test/compat/sentry-cli.test.ts); a bad status filter is a 400.
    expect((await api("PUT", "/api/0/projects/acme/web/issues/?status=bogus", "member", { status: "resolved" })).body.error).toMatchObject({
      code: "validation_failed",
      fields: [{ field: "status" }],
    });
    expect((await api("PUT", "/api/0/projects/acme/web/issues/", "member", { merge: 1 })).body.error).toMatchObject({
      code: "validation_failed",
      fields: [{ field: "id" }],
    });
    expect((await api("PUT", `/api/0/organizations/acme/issues/?id=${a}&id=${b}`, "viewer", { merge: 1 })).status).toBe(403);
    expect((await api("PUT", `/api/0/organizations/acme/issues/?id=${a}&id=${b}`, "member", { merge: 1, status: "resolved" })).status).toBe(
      400,
    );

    const merged = await api("PUT", `/api/0/organizations/acme/issues/?id=${b}&id=${a}`, "member", { merge: 1 });
    expect(merged).toMatchObject({ status: 200, body: { merge: { parent: a, children: [b] } } });
    // The merged id answers 302 to the survivor, as Sentry's GroupRedirect (issue 14).
    const moved = await fetch(`${server.url}/api/0/organizations/acme/issues/${b}/`, {
      headers: { authorization: `Bearer ${tokens.owner}` },
      redirect: "manual",
    });
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toMatch(new RegExp(`/api/0/organizations/acme/issues/${a}/$`));
    expect((await api("GET", `/api/0/organizations/acme/issues/${b}/`, "owner")).body).toMatchObject({ id: String(a) });
    // An id that never existed is still a 404.
    expect((await api("GET", "/api/0/organizations/acme/issues/987654321/", "owner")).status).toBe(404);
    expect(await send("rest bulk b")).toBe(a);
    expect((await api("GET", `/api/0/organizations/acme/issues/${a}/`, "owner")).body).toMatchObject({ count: "3" });
  });

  test("DELETE needs admin or owner; afterwards the fingerprint starts a new issue", async () => {
    const id = await send("rest delete");
    const path = `/api/0/organizations/acme/issues/${id}/`;
    expect((await api("DELETE", path, "member")).status).toBe(403);
    expect((await api("DELETE", path, "viewer")).status).toBe(403);
    expect((await api("DELETE", path, "owner")).status).toBe(202);
    expect((await api("GET", path, "owner")).status).toBe(404);
    const again = await send("rest delete");
    expect(again).not.toBe(id);

    const other = await send("rest bulk delete");
    expect((await api("DELETE", `/api/0/projects/acme/web/issues/?id=${other}&id=${again}`, "owner")).status).toBe(204);
    expect((await api("GET", `/api/0/organizations/acme/issues/${other}/`, "owner")).status).toBe(404);
  });

  test("a merge in flight in another process: its issues answer 409 saying so; once its claim expires the next request finishes it", async () => {
    const a = Number(await send("rest claim a"));
    const b = Number(await send("rest claim b"));
    await send("rest claim b");
    // As a merge of b into a running in another process leaves it between two chunks: its claims
    // taken, one of b's events moved to a (still counted by b).
    const db = openDb(server.db.config);
    try {
      const projectId = Number(
        (await db.kysely.selectFrom("issues").select("project_id").where("id", "=", a).executeTakeFirst())?.project_id,
      );
      const claim = { project_id: projectId, operation: "merge", target_issue_id: a, owner: "another-process", actor_user_id: null };
      const at = Date.now();
      await db.kysely
        .insertInto("issue_claims")
        .values([a, b].map((issue_id) => ({ ...claim, issue_id, claimed_at: at, expires_at: at + 3_600_000 })))
        .execute();
      const moved = await db.kysely.selectFrom("events").select("id").where("issue_id", "=", b).limit(1).executeTakeFirstOrThrow();
      await db.kysely.updateTable("events").set({ issue_id: a }).where("id", "=", moved.id).execute();

      const onB = await api("PUT", `/api/0/organizations/acme/issues/${b}/`, "member", { status: "resolved" });
      expect(onB.status).toBe(409);
      expect(onB.body.error).toMatchObject({
        code: "conflict",
        message: expect.stringContaining(`Issue ${b} is being merged into issue ${a}`),
      });
      expect((await api("DELETE", `/api/0/organizations/acme/issues/${a}/`, "owner")).status).toBe(409);
      // The issue the merge keeps can still be triaged.
      expect((await api("PUT", `/api/0/organizations/acme/issues/${a}/`, "member", { status: "ignored" })).status).toBe(200);

      // That process died: its claims run out, and the next request on the issues finishes the merge.
      await db.kysely
        .updateTable("issue_claims")
        .set({ expires_at: Date.now() - 1 })
        .where("owner", "=", "another-process")
        .execute();
      expect((await api("PUT", `/api/0/organizations/acme/issues/${a}/`, "member", { status: "resolved" })).status).toBe(200);
      expect((await api("GET", `/api/0/organizations/acme/issues/${a}/`, "owner")).body).toMatchObject({ count: "3", status: "resolved" });
      const left = await db.kysely.selectFrom("events").select("issue_id").where("issue_id", "in", [a, b]).execute();
      expect(left.map((e) => Number(e.issue_id))).toEqual([a, a, a]);
      expect(await db.kysely.selectFrom("issue_claims").selectAll().where("issue_id", "in", [a, b]).execute()).toEqual([]);
    } finally {
      await db.close();
    }
  });
});
