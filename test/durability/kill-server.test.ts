/**
 * A 200 means durably stored (issue 3, "Durability"): a load generator sends distinct events to
 * the real server process (SQLite) while it is killed with SIGKILL; after a restart on the same
 * data directory every acknowledged event id is processed exactly once — none lost, none counted
 * twice — and the queue drains.
 */
import http from "node:http";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { queueFileOf } from "../../src/storage/queue/file";
import Database, { type BetterSqlite3 } from "../../src/storage/sqlite-driver";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-db";

const ENV = { ERRATA_ROLES: "ingest,worker", WORKER_LEASE_MS: "2000", LOG_LEVEL: "error" };
const CONNECTIONS = 16;

function post(agent: http.Agent, url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-length": String(Buffer.byteLength(body)) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

function envelope(id: string, n: number): string {
  const event = { event_id: id, message: `durable ${n % 5}`, level: "error", platform: "node", tags: { n: String(n) } };
  return `{"event_id":"${id}"}\n{"type":"event"}\n${JSON.stringify(event)}`;
}

/** Sends distinct events on CONNECTIONS keep-alive connections until a request fails; returns the ids answered 200. */
function loadUntilFailure(url: string, acked: Set<string>, prefix: string): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let seq = 0;
  const loop = async () => {
    for (;;) {
      const n = seq++;
      const id = `${prefix}${n.toString(16).padStart(32 - prefix.length, "0")}`;
      let status: number;
      try {
        status = await post(agent, url, envelope(id, n));
      } catch {
        return;
      }
      if (status === 200) acked.add(id);
    }
  };
  return Promise.all(Array.from({ length: CONNECTIONS }, loop)).then(() => agent.destroy());
}

function readDb(file: string): BetterSqlite3.Database {
  return new Database(file, { readonly: true, fileMustExist: true });
}

describe("SIGKILL under load (real server, SQLite)", () => {
  let info: TestDatabase | undefined;
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await info?.drop();
  });

  test("every acknowledged event is stored exactly once after a restart", async () => {
    info = await createTestDatabase("sqlite");
    server = await startServer({ db: info, env: ENV });
    await server.cli("user", "create", "--email", "dur@example.com", "--password", "durable-password-1", "--org", "dur");
    const dsn = (await server.cli("project", "create", "--org", "dur", "--name", "Durable")).split("\n").pop() ?? "";
    const m = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn);
    expect(m).not.toBeNull();
    const [, key, projectId] = m as RegExpExecArray;
    const url = `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`;

    const acked = new Set<string>();
    const load = loadUntilFailure(url, acked, "a1b2c3");
    // Kill once a good number of events has been acknowledged: mid-load, whatever the machine's speed.
    await eventually(async () => acked.size >= 400, 60_000, "400 acknowledged events");
    await server.kill();
    await load;
    const ackedAtKill = acked.size;
    expect(ackedAtKill).toBeGreaterThanOrEqual(400);

    server = await startServer({ db: info, env: ENV });
    const file = path.join(info.dataDir, "errata.db");
    await eventually(
      async () => {
        // The queue has a file of its own (queue-file.ts).
        const db = readDb(queueFileOf(file));
        try {
          const queued = (db.prepare("SELECT count(*) AS n FROM queue").get() as { n: number }).n;
          return queued === 0;
        } finally {
          db.close();
        }
      },
      60_000,
      "the queue to drain after the restart",
    );
    const db = readDb(file);
    try {
      const ids = new Set(
        (db.prepare("SELECT event_id FROM events WHERE project_id = ?").all(Number(projectId)) as Array<{ event_id: string }>).map(
          (r) => r.event_id,
        ),
      );
      const lost = [...acked].filter((id) => !ids.has(id));
      expect(lost, `${lost.length} acknowledged events lost`).toEqual([]);
      // Exactly once: one row per id (the unique key), and the issue counters saw each event once.
      const rows = (db.prepare("SELECT count(*) AS n FROM events WHERE project_id = ?").get(Number(projectId)) as { n: number }).n;
      expect(rows).toBe(ids.size);
      const counted = (db.prepare("SELECT sum(event_count) AS n FROM issues WHERE project_id = ?").get(Number(projectId)) as { n: number })
        .n;
      expect(counted).toBe(rows);
      // Each stored event counted accepted exactly once (re-deliveries show as duplicates, never as a second accept).
      const accepted = (
        db
          .prepare("SELECT sum(quantity) AS n FROM outcomes WHERE project_id = ? AND category = 'error' AND outcome = 'accepted'")
          .get(Number(projectId)) as {
          n: number;
        }
      ).n;
      expect(accepted).toBe(rows);
    } finally {
      db.close();
    }
  });
});
