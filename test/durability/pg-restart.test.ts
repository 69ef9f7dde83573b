/**
 * Issue 13: the PostgreSQL server itself stopped and started under load, on a throwaway cluster.
 * While it is down, ingest answers 503 with Retry-After (never a 500, never a 200 for an event it
 * could not store); when it is back, Errata recovers by itself, without a restart. Counted at the
 * end: every acknowledged event stored, each exactly once.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { postgresBinDir, startThrowawayCluster, type ThrowawayCluster } from "../helpers/pg-cluster.js";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { tempDir } from "../helpers/test-db.js";

const available = postgresBinDir() !== undefined;
if (!available && process.env.CI === "true")
  throw new Error("PostgreSQL server binaries are required under CI (apt-get install postgresql)");

describe.runIf(available)("PostgreSQL stopped and started under load", () => {
  let cluster: ThrowawayCluster;
  let server: TestServer;
  let dsn: URL;
  let databaseUrl: string;

  beforeAll(async () => {
    cluster = await startThrowawayCluster();
    const admin = new pg.Client({ connectionString: cluster.adminUrl });
    await admin.connect();
    await admin.query("CREATE DATABASE errata");
    await admin.end();
    const url = new URL(cluster.adminUrl);
    url.pathname = "/errata";
    databaseUrl = url.toString();
    const dataDir = tempDir();
    server = await startServer({
      db: { dialect: "postgres", dataDir, databaseUrl, config: { kind: "postgres", url: databaseUrl }, drop: async () => {} },
      // A batch whose transaction died with the server stays leased until the lease ends: keep it short.
      env: { WORKER_LEASE_MS: "5000" },
    });
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));
  });
  afterAll(async () => {
    await server?.stop();
    cluster?.destroy();
  });

  test("503 with Retry-After while it is down; afterwards every acknowledged event is stored once", { timeout: 240_000 }, async () => {
    const acknowledged = new Set<string>();
    const refused: Array<{ status: number; retryAfter: string | null; body: string }> = [];
    let seq = 0;
    let sending = true;
    const sender = async () => {
      while (sending) {
        seq += 1;
        const eventId = `${seq.toString(16).padStart(8, "0")}${"a".repeat(24)}`;
        try {
          const res = await fetch(`${dsn.origin}/api${dsn.pathname}/store/`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
            body: JSON.stringify({ event_id: eventId, message: `restart ${seq % 5}` }),
          });
          const body = await res.text();
          if (res.status === 200) acknowledged.add(eventId);
          else refused.push({ status: res.status, retryAfter: res.headers.get("retry-after"), body: body.slice(0, 200) });
        } catch (err) {
          refused.push({ status: 0, retryAfter: null, body: String(err) });
        }
        // A client backs off on 503, as the SDKs do (Retry-After); keep the loop from spinning.
        if (refused.length > 0 && refused.at(-1)?.status === 503) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const senders = Array.from({ length: 4 }, sender);
    await eventually(async () => acknowledged.size >= 40, 60_000, "40 events acknowledged before the stop");
    cluster.stop();
    await eventually(async () => refused.length >= 5, 60_000, "refusals while PostgreSQL is down");
    const beforeRestart = acknowledged.size;
    cluster.start();
    await eventually(async () => acknowledged.size >= beforeRestart + 40, 90_000, "40 more events acknowledged after the start").catch(
      (err: Error) => {
        throw new Error(`${err.message}\n${server.logs().slice(-3000)}`);
      },
    );
    sending = false;
    await Promise.all(senders);

    // Down: every refusal is a 503 that says when to come back; no 500, no dropped connection.
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.status, r.body).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    // Up again without a restart of Errata.
    expect(server.proc.exitCode).toBeNull();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    // Counted: every acknowledged event stored exactly once, nothing else stored.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      let stored: string[] = [];
      await eventually(
        async () => {
          stored = (await db.query<{ event_id: string }>("SELECT event_id FROM events")).rows.map((r) => r.event_id);
          return stored.length >= acknowledged.size;
        },
        90_000,
        "every acknowledged event stored",
      ).catch((err: Error) => {
        throw new Error(`${err.message}: ${stored.length} of ${acknowledged.size}\n${server.logs().slice(-3000)}`);
      });
      // Exactly once. (A refused request whose commit raced the shutdown may be stored too: its
      // client retries it under the same event id, so that is not a duplicate.)
      expect(stored.length).toBe(new Set(stored).size);
      const storedSet = new Set(stored);
      expect([...acknowledged].filter((id) => !storedSet.has(id))).toEqual([]);
      console.log(
        `PostgreSQL restart: ${acknowledged.size} acknowledged, ${refused.length} refused with 503 + Retry-After, ${stored.length} stored, 0 lost, 0 duplicated`,
      );
    } finally {
      await db.end();
    }
  });
});
