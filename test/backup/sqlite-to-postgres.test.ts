/**
 * Outgrowing one file (issue 43): a SQLite installation with members, a token, an alert rule,
 * events and a replay (a blob file) is backed up, restored into an empty PostgreSQL database with
 * `errata restore --into postgres://…`, and Errata started on it: the counts agree table by table,
 * sampled payloads and the blob are byte-identical, and the token still authenticates over REST.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { decodePayload } from "../../src/storage/events/events";
import Database from "../../src/storage/sqlite-driver";
import { replayIdOf, segmentEnvelope } from "../helpers/replay-envelopes";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, postgresAvailable, tempDir } from "../helpers/test-db";
import { envOf, errata, open, post, queued, startLoad } from "./helpers";

const ENV = { ERRATA_ROLES: "ingest,worker", LOG_LEVEL: "error", ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true" };
const TABLES = [
  "organizations",
  "members",
  "user",
  "account",
  "projects",
  "project_keys",
  "api_tokens",
  "alert_rules",
  "alert_channels",
  "issues",
  "events",
  "replays",
  "replay_segments",
];

describe.runIf(await postgresAvailable())("SQLite → PostgreSQL", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanup.reverse()) await c().catch(() => {});
  });

  test("keeps members, tokens, rules, issues, events and blobs", async () => {
    const source = await createTestDatabase("sqlite");
    cleanup.push(() => source.drop());
    let server: TestServer = await startServer({ db: source, env: ENV });
    cleanup.push(() => server.stop());
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "move-password-1", "--org", "acme");
    await server.cli("user", "create", "--email", "second@example.com", "--password", "move-password-2", "--org", "beta");
    const dsn = (await server.cli("project", "create", "--org", "acme", "--name", "Web")).split("\n").pop() ?? "";
    const token = await server.cli("token", "create", "--email", "owner@example.com", "--scopes", "org:read,project:read,event:read");
    await server.cli(
      "alert",
      "create",
      "--org",
      "acme",
      "--project",
      "web",
      "--trigger",
      "new-issue",
      "--webhook",
      "http://127.0.0.1:9/hook",
    );
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    const ingest = `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`;
    const load = startLoad(ingest, "30e0", 2);
    await eventually(async () => load.acked.size >= 60, 60_000, "60 acknowledged events");
    await load.stop();
    const agent = new http.Agent({ keepAlive: true });
    const replayId = replayIdOf("move");
    for (let n = 0; n < 2; n++) expect(await post(agent, ingest, segmentEnvelope(replayId, n, Date.now() - 60_000 + n * 5000))).toBe(200);
    agent.destroy();
    const blobDir = path.join(source.dataDir, "blobs");
    const blobFiles = () =>
      fs.existsSync(blobDir) ? fs.readdirSync(blobDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()) : [];
    await eventually(
      async () => (await queued(source)) === 0 && blobFiles().length >= 2,
      60_000,
      "the queue to drain and the replay's blobs",
    );
    await server.stop();

    const out = path.join(tempDir("errata-move-"), "sqlite.tar.gz");
    cleanup.push(async () => fs.rmSync(path.dirname(out), { recursive: true, force: true }));
    const backup = await errata(envOf(source), "backup", out);
    expect(backup.code, backup.stderr).toBe(0);

    const target = await createTestDatabase("postgres");
    cleanup.push(() => target.drop());
    const restore = await errata(envOf(target), "restore", out, "--into", target.databaseUrl as string);
    expect(restore.code, restore.stderr).toBe(0);
    expect(restore.stdout).toMatch(/moved from SQLite/);

    // Counts, table by table, and a sample of payloads and the blobs, byte for byte.
    const src = new Database(path.join(source.dataDir, "errata.db"), { readonly: true });
    const db = open(target);
    try {
      for (const t of TABLES) {
        const want = Number(src.prepare(`SELECT count(*) FROM "${t}"`).pluck().get());
        const got = await db.kysely
          .selectFrom(t as "events")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow();
        expect(Number(got.n), t).toBe(want);
      }
      expect(Number(src.prepare("SELECT count(*) FROM events").pluck().get())).toBeGreaterThanOrEqual(60);
      const sample = src.prepare("SELECT event_id, payload FROM events ORDER BY random() LIMIT 10").all() as Array<{
        event_id: string;
        payload: Buffer;
      }>;
      for (const s of sample) {
        const row = await db.kysely.selectFrom("events").select("payload").where("event_id", "=", s.event_id).executeTakeFirstOrThrow();
        expect(decodePayload(row.payload as Buffer)).toEqual(decodePayload(s.payload));
      }
      const blobs = await db.kysely.selectFrom("blobs").select(["key", "data"]).execute();
      expect(blobs.length).toBe(blobFiles().length);
      for (const b of blobs) expect(Buffer.compare(b.data as Buffer, fs.readFileSync(path.join(blobDir, ...b.key.split("/"))))).toBe(0);
    } finally {
      src.close();
      await db.close();
    }

    // Errata on the moved database: the token authenticates, the events are there, ingest goes on.
    server = await startServer({ db: target, env: { LOG_LEVEL: "error" } });
    const auth = { authorization: `Bearer ${token.split("\n").pop()}` };
    const orgs = await fetch(`${server.url}/api/0/organizations/`, { headers: auth });
    expect(orgs.status).toBe(200);
    expect(JSON.stringify(await orgs.json())).toContain('"acme"');
    const issues = await fetch(`${server.url}/api/0/projects/acme/web/issues/`, { headers: auth });
    expect(issues.status).toBe(200);
    expect(((await issues.json()) as unknown[]).length).toBeGreaterThan(0);
    const more = new http.Agent({ keepAlive: true });
    expect(
      await post(more, `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`, `{}\n{"type":"event"}\n{"message":"after the move"}`),
    ).toBe(200);
    more.destroy();
  }, 240_000);
});
