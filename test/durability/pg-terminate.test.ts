/**
 * Issue 14: on PostgreSQL a terminated backend connection (pg_terminate_backend, a failover, an
 * idle-timeout proxy) is reconnected inside the pool: the digest thread keeps running (no crash,
 * no restart) and ingest keeps answering 200 — every acknowledged event is stored. The test
 * terminates every backend of its database, repeatedly, under a small load.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { ADMIN_URL, postgresAvailable } from "../helpers/test-db.js";

describe.runIf(await postgresAvailable())("PostgreSQL backends terminated under load", () => {
  let server: TestServer;
  let dsn: URL;
  let token: string;
  let admin: pg.Client;
  let dbName: string;

  beforeAll(async () => {
    // A batch whose transaction lost its connection stays leased until the lease ends: keep it short.
    server = await startServer({ dialect: "postgres", env: { WORKER_LEASE_MS: "5000" } });
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    token = await server.cli("token", "create", "--email", "owner@example.com", "--scopes", "org:read,project:read,event:read");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));
    dbName = new URL(server.env.DATABASE_URL ?? "").pathname.slice(1);
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  const terminateAll = async (): Promise<number> => {
    const r = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [
      dbName,
    ]);
    return r.rowCount ?? 0;
  };

  test("every acknowledged event is stored; no 503, no digest thread restart", { timeout: 150_000 }, async () => {
    const statuses: number[] = [];
    const acknowledged: string[] = [];
    let terminated = 0;
    const send = async (i: number) => {
      const eventId = `${(i + 1).toString(16).padStart(8, "0")}${"e".repeat(24)}`;
      const res = await fetch(`${dsn.origin}/api${dsn.pathname}/store/`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
        body: JSON.stringify({ event_id: eventId, message: `terminated ${i % 7}` }),
      });
      await res.arrayBuffer();
      statuses.push(res.status);
      if (res.status === 200) acknowledged.push(eventId);
    };
    // Waves of concurrent requests, every backend of the database terminated between (and
    // during) them, so the ingest pool, the worker's pool and in-flight transactions all lose theirs.
    for (let wave = 0; wave < 10; wave++) {
      const inflight = Array.from({ length: 8 }, (_, k) => send(wave * 8 + k));
      terminated += await terminateAll();
      await Promise.all(inflight);
      terminated += await terminateAll();
    }
    expect(terminated).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const stored = async () => {
      let n = 0;
      for (const id of acknowledged) {
        const r = await fetch(`${server.url}/api/0/projects/acme/web/events/${id}/`, { headers: { authorization: `Bearer ${token}` } });
        await r.arrayBuffer();
        if (r.status === 200) n += 1;
      }
      return n;
    };
    let last = 0;
    await eventually(
      async () => {
        last = await stored();
        return last === acknowledged.length;
      },
      90_000,
      "every acknowledged event stored",
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${last} of ${acknowledged.length}\n${server.logs().slice(-4000)}`);
    });
    expect(acknowledged.length).toBe(80);
    expect(server.logs()).not.toContain("digest worker thread exited");
  });
});
