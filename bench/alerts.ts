/**
 * Alert rules' cost on the digest: 10,000 events over 500 issues digested in-process on SQLite
 * (claim + digestBatch, as the worker does), once with no rule armed and once with three rules
 * armed (new issue → webhook, regression with a search filter, frequency 100 events / 60 min).
 * Prints both throughputs and the ratio (target: armed at most 5 % slower). Alternates the two
 * runs twice and keeps each one's best, so machine noise hits both alike.
 *
 *   npx tsx bench/alerts.ts [--events 10000] [--issues 500]
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pino from "pino";
import { parseRuleInput } from "../src/core/alerts/rule-input";
import { digestBatch, sha256Hex } from "../src/pipeline/digest-batch";
import { insertChannel, insertRule, listRules, updateRule } from "../src/storage/alerts/rules";
import { openDb } from "../src/storage/db";
import { writeTx } from "../src/storage/dialect";
import { migrateToLatest } from "../src/storage/migrate";
import { insertProject } from "../src/storage/orgs/projects";
import { claimBatch, enqueueMany } from "../src/storage/queue/queue";

const { values: flags } = parseArgs({
  options: { events: { type: "string", default: "10000" }, issues: { type: "string", default: "500" } },
});
const EVENTS = Number(flags.events);
const ISSUES = Number(flags.issues);
const BATCH = 200;
const log = pino({ level: "silent" });
const LIMITS = { maxHeaderLine: 8192, maxEventSize: 1 << 20, maxAttachmentSize: 20 << 20 };

async function run(armed: boolean): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "errata-bench-alerts-"));
  const db = openDb({ kind: "sqlite", file: path.join(dir, "errata.db"), synchronous: "NORMAL" });
  try {
    await migrateToLatest(db);
    const projectId = await writeTx(db, async (tx) => {
      const org = await tx
        .insertInto("organizations")
        .values({ slug: "bench", name: "Bench", created_at: 1 })
        .returning("id")
        .executeTakeFirstOrThrow();
      const p = await insertProject(tx, { orgId: Number(org.id), slug: "web", name: "web", platform: "node", now: 1 });
      // The default rule every project gets is switched off in the "none" run; three rules in the armed run.
      for (const r of await listRules(tx, p.id)) await updateRule(tx, p.id, r.id, { ...r, enabled: false }, 1);
      if (armed) {
        const c = await insertChannel(tx, p.id, { name: "hook", kind: "webhook", config: { url: "https://hooks.example/x" } }, 1);
        const rules = [
          { name: "new", triggers: { newIssue: true }, channelIds: [c.id] },
          {
            name: "regressions in prod",
            triggers: { regression: true },
            filters: { query: "environment:production level:error" },
            channelIds: [c.id],
          },
          { name: "frequent", triggers: { frequency: { events: 100, minutes: 60 } }, channelIds: [c.id] },
        ];
        for (const r of rules) await insertRule(tx, p.id, parseRuleInput(r, 1), 1);
      }
      return p.id;
    });
    const now = Date.UTC(2026, 0, 1);
    const items = Array.from({ length: EVENTS }, (_, n) => {
      const issue = n % ISSUES;
      const body = {
        event_id: (n + 1).toString(16).padStart(32, "0"),
        platform: "node",
        level: "error",
        environment: "production",
        timestamp: now / 1000,
        user: { id: `u${n % 50}` },
        exception: {
          values: [
            {
              type: "BenchError",
              value: `failure ${issue}`,
              stacktrace: {
                frames: [{ function: `handler_${issue.toString(36)}x`, filename: "src/app.ts", lineno: 10 + (issue % 7), in_app: true }],
              },
            },
          ],
        },
      };
      return { projectId, keyId: 1, receivedAt: now, clientIp: null, kind: "store" as const, body: Buffer.from(JSON.stringify(body)) };
    });
    for (let i = 0; i < items.length; i += 1000) await enqueueMany(db, items.slice(i, i + 1000));
    const started = performance.now();
    let stored = 0;
    for (;;) {
      const batch = await claimBatch(db, now, BATCH, 60_000);
      if (batch.length === 0) break;
      const r = await digestBatch(db, batch, { now, limits: LIMITS, log, hash: sha256Hex });
      stored += r.events;
    }
    const secs = (performance.now() - started) / 1000;
    if (stored !== EVENTS) throw new Error(`stored ${stored} of ${EVENTS}`);
    if (armed) {
      const n = await db.kysely
        .selectFrom("notifications")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .executeTakeFirst();
      console.log(`  armed run queued ${Number(n?.n ?? 0)} notifications`);
    }
    return EVENTS / secs;
  } finally {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const best = { none: 0, armed: 0 };
for (let round = 0; round < 2; round++) {
  best.none = Math.max(best.none, await run(false));
  best.armed = Math.max(best.armed, await run(true));
}
console.log(`digest, ${EVENTS} events over ${ISSUES} issues (SQLite, batches of ${BATCH}):`);
console.log(`  no rules:          ${best.none.toFixed(0)} events/s`);
console.log(`  three rules armed: ${best.armed.toFixed(0)} events/s`);
console.log(
  `  ratio armed/none:  ${(best.armed / best.none).toFixed(3)} (${((1 - best.armed / best.none) * 100).toFixed(1)} % slower; target ≤ 5 %)`,
);
