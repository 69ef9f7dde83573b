/**
 * Issue 39, item 3, the fleet case: web + 2 ingest + 2 workers on PostgreSQL (separate
 * processes), 20,000 events digested while merges, unmerges, deletes and bulk status and
 * assignment changes run every 1,000 stored events (the cadence follows the digest's progress,
 * not the clock). When the queue has drained: no event under a missing issue; every issue's
 * count, users, hourly series, daily rollup and tag counts equal its stored events; every triage
 * request answered 2xx; no process logged at error level.
 *
 * Unmerge has no Sentry REST route in Errata (the issue page's action calls the service): it runs
 * through the same service here, in the test process, against the same database.
 */
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import { type Db, openDb } from "../../src/storage/db";
import { issueInvariantViolations } from "../helpers/issue-invariants";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../helpers/test-db";

const EVENTS = 20_000;
/** one triage operation per this many stored events */
const STEP = 1_000;
const SENDERS = 12;
/** distinct fingerprints (letters only: grouping ignores digits in messages) */
const WORDS = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "indigo", "juniper", "kestrel", "lichen"].flatMap(
  (a) => ["north", "south"].map((b) => `${a} ${b}`),
);

/** Error-level (50) and fatal (60) lines of a process's pino output. */
function errorLines(logs: string): string[] {
  return logs.split("\n").filter((l) => {
    if (!l.startsWith("{")) return false;
    try {
      return (JSON.parse(l) as { level?: number }).level !== undefined && (JSON.parse(l) as { level: number }).level >= 50;
    } catch {
      return false;
    }
  });
}

describe.runIf(await postgresAvailable())("triage during digest on a PostgreSQL fleet", () => {
  const servers: TestServer[] = [];
  let db: TestDatabase | undefined;
  let direct: Db | undefined;
  let client: pg.Client | undefined;
  afterAll(async () => {
    await client?.end();
    await direct?.close();
    for (const s of servers) await s.stop();
    await db?.drop();
  });

  test("web + 2 ingest + 2 workers, 20,000 events, triage every 1,000: nothing stranded, counters exact, no error logged", {
    timeout: 300_000,
  }, async () => {
    db = await createTestDatabase("postgres");
    const start = async (roles: string) => {
      const s = await startServer({ db: db as TestDatabase, env: { ERRATA_ROLES: roles } });
      servers.push(s);
      return s;
    };
    // The web process migrates; the others start on the migrated database together.
    const web = await start("web");
    const [ingestA, ingestB] = await Promise.all([start("ingest"), start("ingest"), start("worker"), start("worker")]);
    const ingests = [ingestA, ingestB] as TestServer[];
    await web.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    const dsn = new URL(await web.cli("project", "create", "--org", "acme", "--name", "fleet", "--platform", "javascript"));
    const token = await web.cli(
      "token",
      "create",
      "--email",
      "owner@example.com",
      "--scopes",
      "org:read,project:read,event:read,event:write",
    );
    client = new pg.Client({ connectionString: db.databaseUrl });
    await client.connect();
    const c = client;
    const projectId = Number((await c.query<{ id: string }>("SELECT id FROM projects WHERE slug = 'fleet'")).rows[0]?.id);

    // Unmerge through the service (see the header), as a second web process would.
    direct = openDb({ kind: "postgres", url: db.databaseUrl as string }, { poolSize: 2 });
    const config = loadConfig({ PUBLIC_URL: web.url, DATA_DIR: db.dataDir, DATABASE_URL: db.databaseUrl as string });
    const secret = "fleet-secret-fleet-secret-fleet-secret";
    const services = createServices({
      db: direct,
      auth: createAuth(direct, config, secret),
      config,
      log: createLogger("silent"),
      now: Date.now,
    });
    const owner = (await c.query<{ id: string }>(`SELECT id FROM "user" WHERE email = 'owner@example.com'`)).rows[0]?.id as string;
    const ownerViewer = { userId: owner, email: "owner@example.com", name: "owner" };

    // ---- senders: SDK-like, through both ingest processes; a 429/503 is retried as an SDK would.
    let seq = 0;
    let acknowledged = 0;
    const send = async () => {
      for (;;) {
        seq += 1;
        const n = seq;
        if (n > EVENTS) return;
        const body = JSON.stringify({
          event_id: `${n.toString(16).padStart(8, "0")}${"f".repeat(24)}`,
          platform: "javascript",
          level: "error",
          exception: { values: [{ type: "FleetError", value: `fleet ${WORDS[n % WORDS.length]}` }] },
          user: { id: `user-${n % 97}` },
        });
        for (let attempt = 0; ; attempt += 1) {
          const target = ingests[(n + attempt) % 2] as TestServer;
          const res = await fetch(`${target.url}/api${dsn.pathname}/store/`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-sentry-auth": `Sentry sentry_key=${dsn.username}, sentry_version=7` },
            body,
          });
          await res.arrayBuffer();
          if (res.status === 200) break;
          if (res.status !== 429 && res.status !== 503) throw new Error(`ingest answered ${res.status}`);
          await new Promise((r) => setTimeout(r, 50 * (attempt + 1)));
        }
        acknowledged += 1;
      }
    };

    // ---- triage: one operation per STEP stored events, over the busiest issues at that moment.
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${web.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
      return res.status;
    };
    const busiest = async (n: number) =>
      (
        await c.query<{ id: string }>("SELECT id FROM issues WHERE project_id = $1 ORDER BY event_count DESC, id LIMIT $2", [projectId, n])
      ).rows.map((r) => Number(r.id));
    const ids = (list: number[]) => list.map((id) => `id=${id}`).join("&");
    const issuesPath = "/api/0/projects/acme/fleet/issues/";
    const done: Record<string, number> = { merge: 0, unmerge: 0, delete: 0, status: 0, assign: 0 };
    const operations: Array<() => Promise<void>> = [
      async () => {
        const pair = await busiest(2);
        if (pair.length < 2) return;
        await api("PUT", `${issuesPath}?${ids(pair)}`, { merge: 1 });
        done.merge += 1;
      },
      async () => {
        await api("PUT", `${issuesPath}?${ids(await busiest(3))}`, { status: "resolved" });
        done.status += 1;
      },
      async () => {
        const row = (
          await c.query<{ issue_id: string; hash: string }>(
            `SELECT h.issue_id, max(h.hash) AS hash FROM issue_hashes h JOIN issues i ON i.id = h.issue_id
             WHERE h.project_id = $1 GROUP BY h.issue_id HAVING count(*) > 1 ORDER BY h.issue_id LIMIT 1`,
            [projectId],
          )
        ).rows[0];
        if (!row) return;
        await services.issueUnmerge.unmerge(ownerViewer, "acme", Number(row.issue_id), row.hash);
        done.unmerge += 1;
      },
      async () => {
        const [id] = await busiest(1);
        await api("DELETE", `${issuesPath}?id=${id}`);
        done.delete += 1;
      },
      async () => {
        await api("PUT", `${issuesPath}?${ids(await busiest(3))}`, { assignedTo: "owner@example.com" });
        done.assign += 1;
      },
    ];
    // Progress: the highest event row id (stored events, never lowered by the deletes' few rows).
    const stored = async () => Number((await c.query<{ n: string | null }>("SELECT max(id) AS n FROM events")).rows[0]?.n ?? 0);
    const triage = async () => {
      for (let i = 0, next = STEP; next < EVENTS; i += 1, next += STEP) {
        await eventually(async () => (await stored()) >= next, 120_000, `${next} events stored`);
        await (operations[i % operations.length] as () => Promise<void>)();
      }
    };

    const started = Date.now();
    await Promise.all([...Array.from({ length: SENDERS }, send), triage()]);
    expect(acknowledged).toBe(EVENTS);
    await eventually(
      async () => Number((await c.query<{ n: string }>("SELECT count(*) AS n FROM queue")).rows[0]?.n) === 0,
      120_000,
      "the queue to drain",
    );
    const seconds = (Date.now() - started) / 1000;

    const violations = await issueInvariantViolations(direct.kysely, [projectId]);
    expect(violations.slice(0, 20)).toEqual([]);
    // Every operation kind ran (each at least three times over 19 steps).
    for (const [kind, n] of Object.entries(done)) expect(n, kind).toBeGreaterThanOrEqual(3);
    for (const s of servers) expect(errorLines(s.logs()), `error lines of ${s.env.ERRATA_ROLES}`).toEqual([]);
    const storedNow = Number(
      (await c.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE project_id = $1", [projectId])).rows[0]?.n,
    );
    const issues = Number((await c.query<{ n: string }>("SELECT count(*) AS n FROM issues WHERE project_id = $1", [projectId])).rows[0]?.n);
    const retries = servers.reduce((n, s) => n + (s.logs().match(/retried/g)?.length ?? 0), 0);
    console.log(
      `fleet triage: ${EVENTS} events acknowledged in ${seconds.toFixed(1)} s; ${JSON.stringify(done)}; ${storedNow} stored in ${issues} issues ` +
        `(the rest deleted with their issues); 0 invariant violations; 0 error lines; ${retries} retried transactions logged`,
    );
  });
});
