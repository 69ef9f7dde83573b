/**
 * Every real SDK event in the corpus, posted to the running server as an envelope, is accepted
 * (200) and becomes an event on an issue; files known to break the schema may instead get a 400
 * with a catalogue code — never a 5xx.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDb } from "../../src/storage/db.js";
import { queueStore } from "../../src/storage/queue/queue";
import { eventually, startServer, type TestServer } from "../helpers/server.js";
import { dialects } from "../helpers/test-db.js";

const CORPUS = path.resolve(import.meta.dirname, "../../../shared/corpus/event-samples");
const knownBroken = new Set(
  fs
    .readFileSync(path.join(CORPUS, "KNOWN-BROKEN"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean),
);
const files = fs
  .readdirSync(CORPUS, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".json"))
  .sort();

describe.each(await dialects())("corpus → issues on %s", (dialect) => {
  let server: TestServer;
  let dsn: URL;

  beforeAll(async () => {
    server = await startServer({ dialect });
    await server.cli("user", "create", "--email", "dev@example.com", "--password", "correct horse battery", "--org", "acme");
    dsn = new URL(await server.cli("project", "create", "--org", "acme", "--name", "corpus"));
  });
  afterAll(async () => server?.stop());

  test(`all ${files.length} corpus files are accepted and digested`, { timeout: 180_000 }, async () => {
    expect(files.length).toBeGreaterThan(150);
    const projectId = dsn.pathname.slice(1);
    const accepted: string[] = [];
    for (const file of files) {
      const payload = fs.readFileSync(path.join(CORPUS, file));
      // Several corpus files share an event_id (a duplicate is stored once, by design); a fresh id
      // in the envelope header — which wins over the payload's — makes each file its own event.
      const header = JSON.stringify({ event_id: randomUUID().replace(/-/g, "") });
      const body = Buffer.concat([
        Buffer.from(`${header}\n{"type":"event"}\n`),
        Buffer.from(JSON.stringify(JSON.parse(payload.toString()))),
      ]);
      const res = await fetch(`${server.url}/api/${projectId}/envelope/?sentry_key=${dsn.username}&sentry_version=7`, {
        method: "POST",
        body,
      });
      const text = await res.text();
      expect(res.status, `${file}: ${text}`).toBeLessThan(500);
      if (res.status === 200) {
        accepted.push(file);
        expect(JSON.parse(text).id, file).toMatch(/^[0-9a-f]{32}$/);
      } else {
        expect(knownBroken.has(file), `${file} rejected with ${res.status} ${text}`).toBe(true);
        expect(JSON.parse(text).code).toMatch(/^[a-z_]+$/);
      }
    }
    expect(accepted.length).toBeGreaterThanOrEqual(files.length - knownBroken.size);

    const db = openDb(server.db.config);
    try {
      const counts = await eventually(
        async () => {
          const ev = await db.kysely
            .selectFrom("events")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow();
          const queued = await queueStore(db)
            .kysely.selectFrom("queue")
            .select((eb) => eb.fn.countAll<number>().as("n"))
            .executeTakeFirstOrThrow();
          return Number(ev.n) === accepted.length && Number(queued.n) === 0 ? { events: Number(ev.n) } : undefined;
        },
        60_000,
        "every accepted event to be digested",
      );
      expect(counts.events).toBe(accepted.length);
      const orphans = await db.kysely
        .selectFrom("events")
        .leftJoin("issues", "issues.id", "events.issue_id")
        .select("events.event_id")
        .where("issues.id", "is", null)
        .execute();
      expect(orphans).toEqual([]);
      const sum = await db.kysely
        .selectFrom("issues")
        .select((eb) => eb.fn.sum<number>("event_count").as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(sum.n)).toBe(accepted.length);
    } finally {
      await db.close();
    }
  });
});
