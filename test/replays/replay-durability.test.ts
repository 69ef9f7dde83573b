/**
 * The queue's guarantee extends to replays (issue 40): replay segments are sent to the real server
 * (SQLite, blobs as files) while it is killed with SIGKILL; after a restart on the same data
 * directory every acknowledged segment has its row and its blob file, which inflates to the rrweb
 * events that were sent — none lost, none half-written, and no temporary file survives as a blob.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, describe, expect, test } from "vitest";
import { queueFileOf } from "../../src/storage/queue/file";
import Database from "../../src/storage/sqlite-driver";
import { replayIdOf, segmentEnvelope } from "../helpers/replay-envelopes";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, type TestDatabase } from "../helpers/test-db";

const ENV = { ERRATA_ROLES: "ingest,worker", WORKER_LEASE_MS: "2000", LOG_LEVEL: "error" };
const SESSIONS = 8;

function post(agent: http.Agent, url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-length": String(body.length) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("SIGKILL while replays arrive (real server, SQLite)", () => {
  let info: TestDatabase | undefined;
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
    await info?.drop();
  });

  test("every acknowledged segment is stored, row and blob, after a restart", async () => {
    info = await createTestDatabase("sqlite");
    server = await startServer({ db: info, env: ENV });
    await server.cli("user", "create", "--email", "dur@example.com", "--password", "durable-password-1", "--org", "dur");
    const dsn = (await server.cli("project", "create", "--org", "dur", "--name", "Durable")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    const url = `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`;

    // SESSIONS sessions, each sending its segments in order, ~20 KB each, until the server dies.
    const acked = new Set<string>();
    const t0 = Date.now() - 600_000;
    const agent = new http.Agent({ keepAlive: true, maxSockets: SESSIONS });
    const session = async (s: number) => {
      const replayId = replayIdOf(`durable-${s}`);
      for (let n = 0; ; n++) {
        let status: number;
        try {
          status = await post(agent, url, segmentEnvelope(replayId, n, t0 + n * 5000, { start: t0, padTo: 20_000 }));
        } catch {
          return;
        }
        if (status !== 200) return;
        acked.add(`${replayId}/${n}`);
      }
    };
    const load = Promise.all(Array.from({ length: SESSIONS }, (_, s) => session(s)));
    await eventually(async () => acked.size >= 120, 60_000, "120 acknowledged segments");
    await server.kill();
    await load;
    agent.destroy();

    server = await startServer({ db: info, env: ENV });
    const file = path.join(info.dataDir, "errata.db");
    await eventually(
      async () => {
        const q = new Database(queueFileOf(file), { readonly: true, fileMustExist: true });
        try {
          return (q.prepare("SELECT count(*) AS n FROM queue").get() as { n: number }).n === 0;
        } finally {
          q.close();
        }
      },
      60_000,
      "the queue to drain after the restart",
    );
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const rows = db
        .prepare("SELECT replay_id, segment_id, blob_key FROM replay_segments WHERE project_id = ?")
        .all(Number(projectId)) as Array<{
        replay_id: string;
        segment_id: number;
        blob_key: string;
      }>;
      const stored = new Map(rows.map((r) => [`${r.replay_id}/${r.segment_id}`, r.blob_key]));
      const lost = [...acked].filter((k) => !stored.has(k));
      expect(lost, `${lost.length} acknowledged segments lost`).toEqual([]);
      for (const k of acked) {
        const blob = fs.readFileSync(path.join(info.dataDir, "blobs", ...(stored.get(k) as string).split("/")));
        const events = JSON.parse(zlib.inflateSync(blob).toString()) as unknown[];
        expect(events.length, k).toBeGreaterThan(3);
      }
      // Each replay counts each of its stored segments once.
      const counts = db.prepare("SELECT replay_id, count_segments FROM replays WHERE project_id = ?").all(Number(projectId)) as Array<{
        replay_id: string;
        count_segments: number;
      }>;
      for (const c of counts) expect(c.count_segments, c.replay_id).toBe(rows.filter((r) => r.replay_id === c.replay_id).length);
    } finally {
      db.close();
    }
  });
});
