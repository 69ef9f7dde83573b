/**
 * Issue 14: while another process holds SQLite's write lock, ingest answers the catalogued
 * `storage_unavailable` 503 with Retry-After (not "overloaded", not a 30 s hold), REST writes the
 * same (not a generic 500), /readyz is 503 with `writable: false`, and the log has one line when it
 * starts and one when it ends — not one per request. Then the lock is released and everything
 * works again. Real server; the lock is a second connection to the same file (SQLite only: the
 * PostgreSQL counterpart is connection loss, see pg-terminate tests).
 */

import { afterAll, beforeAll, describe, expect, test } from "vitest";
import SQLite from "../../src/storage/sqlite-driver";
import { eventually, startServer, type TestServer } from "../helpers/server.js";

describe("SQLite locked by another writer", () => {
  let server: TestServer;
  let dsn: URL;
  let token: string;

  const store = (eventId: string) =>
    fetch(`${dsn.origin}/api${dsn.pathname}/store/`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
      body: JSON.stringify({ event_id: eventId, message: `locked ${eventId}` }),
    });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const count = (line: string) =>
    server
      .logs()
      .split("\n")
      .filter((l) => l.includes(line)).length;

  beforeAll(async () => {
    server = await startServer({ dialect: "sqlite" });
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    token = await server.cli("token", "create", "--email", "owner@example.com", "--scopes", "org:read,project:read,event:read,event:write");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));
  });
  afterAll(async () => server?.stop());

  test("503 storage_unavailable + Retry-After for ingest and REST writes, /readyz false, one log line per state change", async () => {
    const before = "a".repeat(32);
    expect((await store(before)).status).toBe(200);
    const issueId = await eventually(
      async () => {
        const r = await api("GET", `/api/0/projects/acme/web/events/${before}/`);
        return r.status === 200 ? ((await r.json()) as { groupID: string }).groupID : undefined;
      },
      30_000,
      "the first event",
    );

    const file = server.db.config.kind === "sqlite" ? server.db.config.file : "";
    const holder = new SQLite(file);
    holder.exec("BEGIN EXCLUSIVE");
    try {
      const ready = await eventually(
        async () => {
          const r = await fetch(`${server.url}/readyz`);
          return r.status === 503 ? ((await r.json()) as { writable: boolean }) : undefined;
        },
        30_000,
        "/readyz to turn 503",
      );
      expect(ready.writable).toBe(false);

      for (let i = 0; i < 5; i++) {
        const r = await store(`b${i}${"0".repeat(30)}`);
        expect(r.status).toBe(503);
        expect(r.headers.get("retry-after")).toMatch(/^\d+$/);
        expect(((await r.json()) as { code: string }).code).toBe("storage_unavailable");
      }
      const put = await api("PUT", `/api/0/organizations/acme/issues/${issueId}/`, { status: "resolved" });
      expect(put.status).toBe(503);
      expect(put.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(((await put.json()) as { error: { code: string } }).error.code).toBe("storage_unavailable");
      expect(count("storage unavailable")).toBe(1);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }

    await eventually(async () => (await fetch(`${server.url}/readyz`)).status === 200, 30_000, "/readyz back to 200");
    const after = "c".repeat(32);
    expect((await store(after)).status).toBe(200);
    await eventually(async () => (await api("GET", `/api/0/projects/acme/web/events/${after}/`)).status === 200, 30_000, "the event after");
    expect((await api("PUT", `/api/0/organizations/acme/issues/${issueId}/`, { status: "resolved" })).status).toBe(200);
    expect(count("storage unavailable")).toBe(1);
    expect(count("storage available again")).toBe(1);
  });
});
