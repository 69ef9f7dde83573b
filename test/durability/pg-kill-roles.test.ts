/**
 * Issue 13: scaled out on PostgreSQL — one process with the web and ingest roles, one with the
 * worker role — `kill -9` of either process under load loses nothing: the worker's claimed batch
 * comes back after its lease and a fresh worker digests it; the ingest process answers 200 only
 * after the queue row is committed, so what it acknowledged before dying is stored. Counted at the
 * end: every acknowledged event stored, each exactly once.
 */
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../helpers/test-db.js";

describe.runIf(await postgresAvailable())("kill -9 of one process of a scaled-out installation", () => {
  const servers: TestServer[] = [];
  let db: TestDatabase | undefined;
  afterAll(async () => {
    for (const s of servers) await s.stop();
    await db?.drop();
  });

  test("worker killed, then the ingest process killed, under load: every acknowledged event stored once", {
    timeout: 240_000,
  }, async () => {
    db = await createTestDatabase("postgres");
    const start = async (roles: string) => {
      const s = await startServer({ db, env: { ERRATA_ROLES: roles, WORKER_LEASE_MS: "3000" } });
      servers.push(s);
      return s;
    };
    let front = await start("web,ingest");
    let worker = await start("worker");
    await front.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    const dsn = new URL(await front.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));

    const acknowledged = new Set<string>();
    let failures = 0;
    let seq = 0;
    let sending = true;
    const sender = async () => {
      while (sending) {
        seq += 1;
        const eventId = `${seq.toString(16).padStart(8, "0")}${"b".repeat(24)}`;
        try {
          const res = await fetch(`${front.url}/api${dsn.pathname}/store/`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
            body: JSON.stringify({
              event_id: eventId,
              message: `kill ${seq % 5}`,
              exception: { values: [{ type: "KillError", value: String(seq) }] },
            }),
          });
          await res.arrayBuffer();
          if (res.status === 200) acknowledged.add(eventId);
          else failures += 1;
        } catch {
          // The ingest process was killed mid-request: not acknowledged, the SDK would retry.
          failures += 1;
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const senders = Array.from({ length: 4 }, sender);
    const acks = async (n: number, what: string) => {
      const target = acknowledged.size + n;
      await eventually(async () => acknowledged.size >= target, 90_000, what);
    };

    await acks(30, "events acknowledged before the worker dies");
    await worker.kill();
    await acks(30, "events acknowledged while no worker runs");
    worker = await start("worker");
    await acks(30, "events acknowledged before the ingest process dies");
    await front.kill();
    front = await start("web,ingest");
    await acks(30, "events acknowledged by the new ingest process");
    sending = false;
    await Promise.all(senders);

    const client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    try {
      let stored: string[] = [];
      await eventually(
        async () => {
          stored = (await client.query<{ event_id: string }>("SELECT event_id FROM events")).rows.map((r) => r.event_id);
          const have = new Set(stored);
          return [...acknowledged].every((id) => have.has(id));
        },
        90_000,
        "every acknowledged event stored",
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${stored.length} stored of ${acknowledged.size}\n${worker.logs().slice(-3000)}`);
      });
      expect(stored.length).toBe(new Set(stored).size);
      console.log(
        `kill -9 on PostgreSQL: ${acknowledged.size} acknowledged, ${failures} refused or cut off, ${stored.length} stored, 0 lost, 0 duplicated`,
      );
    } finally {
      await client.end();
    }
  });
});
