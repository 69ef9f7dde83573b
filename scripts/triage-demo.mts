/**
 * A demo installation for the triage screenshots: the built server on a fresh SQLite file, the
 * realistic events of e2e/helpers/triage-fixtures.ts sent through ingest, then two weeks of
 * history added to those issues straight through storage (older copies of their events, with
 * counts and statistics as the digest would have kept them) so sparklines and trends have shape.
 *
 *   npm run build && npx tsx scripts/triage-demo.mts            # seeds, prints BASE_URL…, waits
 *   npx tsx scripts/triage-demo.mts --shots [ONLY=issues,issue,events PHONE=1]
 *                                                               # …and runs scripts/screenshots.mjs
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { promisify } from "node:util";
import { createTriageTenant, PASSWORD, seedTriage } from "../e2e/helpers/triage-fixtures";
import type { NormalizedEvent } from "../src/core/event";
import { statTagsOf } from "../src/core/search/event-tags";
import { openDb } from "../src/storage/db";
import { writeTx } from "../src/storage/dialect";
import { getEvent, insertEvent } from "../src/storage/events/events";
import { IssueStatsBatch, writeIssueStats } from "../src/storage/issues/stats";
import { searchIssueEvents } from "../src/storage/issues/triage-reads";
import { eventually, ROOT, startServer } from "../test/helpers/server";

const execFileP = promisify(execFile);
const HOUR = 3_600_000;

const server = await startServer({ dialect: "sqlite" });
const t = await createTriageTenant(server, "acme", "web", "ada@example.com");
await seedTriage(server, t);
const auth = { authorization: `Bearer ${t.token}` };
await eventually(
  async () =>
    ((await (await fetch(`${server.url}/api/0/projects/acme/web/issues/?query=`, { headers: auth })).json()) as unknown[]).length >= 6,
  30_000,
  "issues",
);

// History: per issue a shape over 14 days (steady, growing, a spike, a regression), newest first in weight.
const db = openDb({ kind: "sqlite", file: path.join(server.db.dataDir, "errata.db"), synchronous: "NORMAL" });
const issues = await db.kysely.selectFrom("issues").select(["id", "project_id", "title"]).orderBy("id").execute();
const now = Date.now();
let seq = 0;
for (const [n, issue] of issues.entries()) {
  // The newest issue stays new (no history).
  if (n === issues.length - 1) continue;
  // Copies of the issue's real events (their users, browsers, environments vary).
  const rows = (await searchIssueEvents(db, { issueId: Number(issue.id), filters: [], limit: 50 })).items;
  const originals = (await Promise.all(rows.map((r) => getEvent(db, r.projectId, r.eventId)))).filter((e) => e !== undefined);
  if (originals.length === 0) continue;
  const shape = (h: number): number => {
    const day = h / 24;
    if (n % 4 === 0) return 2 + 2 * Math.sin(h / 3) + (day < 2 ? 6 : 0);
    if (n % 4 === 1) return Math.max(0, 5 - day / 2);
    if (n % 4 === 2) return day > 5 && day < 6 ? 20 : 0.4;
    return day < 1 ? 8 : 0.2;
  };
  const stats = new IssueStatsBatch();
  let added = 0;
  let first = now;
  await writeTx(db, async (tx) => {
    for (let h = 1; h < 14 * 24; h++) {
      const expected = shape(h) * (n === 0 ? 1.5 : 0.6);
      const count = Math.floor(expected) + (Math.random() < expected % 1 ? 1 : 0);
      for (let i = 0; i < count; i++) {
        const at = now - h * HOUR - Math.floor(Math.random() * HOUR);
        seq += 1;
        const source = originals[seq % originals.length] as NonNullable<(typeof originals)[number]>;
        const event = { ...source.event, event_id: randomBytes(16).toString("hex") } as unknown as NormalizedEvent;
        await insertEvent(tx, { ...source, eventId: event.event_id, receivedAt: at, timestamp: at, payload: event });
        stats.add(Number(issue.id), Number(issue.project_id), at, statTagsOf(event, source.digest));
        added += 1;
        first = Math.min(first, at);
      }
    }
    await writeIssueStats(tx, stats);
    await tx
      .updateTable("issues")
      // Two weeks old: past the 7 days of "new".
      .set((eb) => ({
        event_count: eb("event_count", "+", added),
        first_seen: eb.fn("min", [eb.ref("first_seen"), eb.val(first)]),
        substatus: "ongoing",
      }))
      .where("id", "=", Number(issue.id))
      .execute();
  });
}
await db.close();

const env = { BASE_URL: server.url, EMAIL: t.email, PASSWORD, ORG: "acme", ISSUE: "TypeError" };
console.log(
  Object.entries(env)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(" "),
);
if (process.argv.includes("--shots")) {
  const { stdout } = await execFileP(process.execPath, [path.join(ROOT, "scripts/screenshots.mjs")], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  console.log(stdout);
  await server.stop();
} else {
  console.log("Ctrl+C to stop.");
  process.on("SIGINT", () => void server.stop().then(() => process.exit(0)));
}
