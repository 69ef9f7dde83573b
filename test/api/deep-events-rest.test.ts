/**
 * Issue 14, "no 500s": JSON nested 10,000+ deep sent with a public DSN to `/store/` (a custom
 * fingerprint, unknown fields) is stored trimmed, and REST reads of deeply nested events —
 * `…/events/latest/` and the event by id — answer 200, also for an event stored before the
 * normaliser bounded depth (its payload is rewritten in the database to stand for one). Real
 * server, both databases.
 */
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { openDb } from "../../src/storage/db";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const deepArray = (n: number) => `${"[".repeat(n)}"x"${"]".repeat(n)}`;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;

describe.each(await dialects())("deeply nested events over REST on %s", (dialect) => {
  let server: TestServer;
  let db: Db;
  let token: string;
  let store: string;
  const auth = () => ({ authorization: `Bearer ${token}` });

  beforeAll(async () => {
    server = await startServer({ dialect });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    const dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript"));
    token = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "org:read,project:read,event:read");
    store = `${server.url}/api/${dsn.pathname.slice(1)}/store/?sentry_key=${dsn.username}`;
    db = openDb(server.db.config);
  });
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  async function post(body: string): Promise<{ status: number; id?: string }> {
    const res = await fetch(store, { method: "POST", body, headers: { "content-type": "application/json" } });
    const json = (await res.json()) as { id?: string };
    return { status: res.status, id: json.id };
  }

  async function issueOf(eventId: string): Promise<string> {
    return eventually(
      async () => {
        const res = await fetch(`${server.url}/api/0/projects/acme/web/events/${eventId}/`, { headers: auth() });
        return res.status === 200 ? ((await res.json()) as { groupID: string }).groupID : undefined;
      },
      30_000,
      `event ${eventId} stored`,
    );
  }

  async function expectReadable(issueId: string, eventId: string): Promise<Record<string, unknown>> {
    const latest = await fetch(`${server.url}/api/0/organizations/acme/issues/${issueId}/events/latest/`, { headers: auth() });
    expect(latest.status).toBe(200);
    const byId = await fetch(`${server.url}/api/0/projects/acme/web/events/${eventId}/`, { headers: auth() });
    expect(byId.status).toBe(200);
    return (await byId.json()) as Record<string, unknown>;
  }

  test("POST /store/ nested 10,000+ deep (fingerprint, unknown fields): 200, stored, readable", async () => {
    const r = await post(
      `{"message":"deep","fingerprint":[${deepArray(12_000)}],"custom":${deepObject(12_000)},"extra":{"x":${deepArray(12_000)}}}`,
    );
    expect(r.status).toBe(200);
    const id = r.id as string;
    const event = await expectReadable(await issueOf(id), id);
    expect(event.eventID).toBe(id);
  });

  test("an event stored before depth was bounded reads as 200, its deep parts previewed", async () => {
    const r = await post(`{"message":"legacy"}`);
    const id = r.id as string;
    const issueId = await issueOf(id);
    // Stand-in for a row written by an older version: a 20,000-deep payload and a µs timestamp.
    const payload = `{"event_id":"${id}","message":"legacy","timestamp":1.7e15,"custom":${deepObject(20_000)}}`;
    await db.kysely
      .updateTable("events")
      .set({ payload: zlib.gzipSync(Buffer.from(payload)) })
      .where("event_id", "=", id)
      .execute();
    const event = await expectReadable(issueId, id);
    expect(typeof event.custom).toBe("object");
    expect(JSON.stringify(event).length).toBeLessThan(10_000);
  });
});
