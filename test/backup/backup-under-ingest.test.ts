/**
 * An online backup (issue 43): events are ingested and digested over real HTTP while `errata
 * backup` runs against the real server's data; the archive is restored into a fresh data
 * directory / database, Errata is started on it, and every event acknowledged before the backup
 * began is there, digested once, its payload whole — on SQLite and on PostgreSQL.
 */
import fs from "node:fs";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, test } from "vitest";
import { decodePayload } from "../../src/storage/events/events";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, dialects, tempDir } from "../helpers/test-db";
import { envOf, errata, open, queued, startLoad } from "./helpers";

const ENV = { ERRATA_ROLES: "ingest,worker", LOG_LEVEL: "error", WORKER_LEASE_MS: "2000" };

describe.each(await dialects())("backup while ingesting (%s)", (dialect) => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {});
  });

  test("every event acknowledged before the backup is restored, none torn", async () => {
    const source = await createTestDatabase(dialect);
    cleanup.push(() => source.drop());
    let server: TestServer = await startServer({ db: source, env: ENV });
    cleanup.push(() => server.stop());
    await server.cli("user", "create", "--email", "ops@example.com", "--password", "backup-password-1", "--org", "ops");
    const dsn = (await server.cli("project", "create", "--org", "ops", "--name", "Shop")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    const load = startLoad(`${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, "b4c0", 3);
    await eventually(async () => load.acked.size >= 150, 60_000, "150 acknowledged events");

    // Acknowledged before the backup began: what the restore must hold.
    const before = new Set(load.acked);
    const out = path.join(tempDir("errata-backup-out-"), "online.tar.gz");
    cleanup.push(async () => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
    const backup = await errata(envOf(source), "backup", out);
    const duringBackup = load.acked.size - before.size;
    await load.stop();
    expect(backup.code, backup.stderr).toBe(0);
    // Ingest went on while the backup ran.
    expect(duringBackup).toBeGreaterThan(0);
    // The source's fate after the backup is irrelevant: no graceful drain to wait for.
    await server.kill();

    const target = await createTestDatabase(dialect);
    cleanup.push(() => target.drop());
    const into = target.databaseUrl ?? target.dataDir;
    const restore = await errata(envOf(target), "restore", out, "--into", into);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/counts agree/);

    server = await startServer({ db: target, env: ENV });
    await eventually(async () => (await queued(target)) === 0, 60_000, "the restored queue to drain");
    const db = open(target);
    try {
      const rows = await db.kysely
        .selectFrom("events")
        .select(["event_id", "payload"])
        .where("project_id", "=", Number(projectId))
        .execute();
      const ids = new Set(rows.map((r) => r.event_id));
      const lost = [...before].filter((id) => !ids.has(id));
      expect(lost, `${lost.length} events acknowledged before the backup are missing`).toEqual([]);
      // None torn: every payload decodes to its own event; one row per id; counters agree.
      for (const r of rows) {
        const p = decodePayload(r.payload as Buffer);
        expect(String(p.event_id ?? "").replace(/-/g, "")).toBe(r.event_id.replace(/-/g, ""));
        expect(p.extra).toMatchObject({ pad: "x".repeat(400) });
      }
      expect(ids.size).toBe(rows.length);
      const counted = await db.kysely
        .selectFrom("issues")
        .select(sql<number>`sum(event_count)`.as("n"))
        .where("project_id", "=", Number(projectId))
        .executeTakeFirstOrThrow();
      expect(Number(counted.n)).toBe(rows.length);
    } finally {
      await db.close();
    }
  }, 240_000);
});
