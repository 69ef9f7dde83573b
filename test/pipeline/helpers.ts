import { createHash } from "node:crypto";
import pino from "pino";
import type { Config } from "../../src/config";
import { type DigestResult, digestBatch, sha256Hex } from "../../src/pipeline/digest-batch";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertProject } from "../../src/storage/orgs/projects";
import { claimBatch } from "../../src/storage/queue/queue";

export const silentLog = pino({ level: "silent" });

export const LIMITS: Config["limits"] = {
  maxCompressedBody: 20 << 20,
  maxEnvelopeSize: 100 << 20,
  maxEventSize: 1 << 20,
  maxAttachmentSize: 20 << 20,
  maxHeaderLine: 8192,
  bodyTimeoutMs: 30_000,
};

export const deps = (now: number) => ({ now, limits: LIMITS, log: silentLog, hash: sha256Hex });

/** A deterministic 32-hex id from any string. */
export const hexId = (s: string) => createHash("md5").update(s).digest("hex");

let orgSeq = 0;
export async function createProject(db: Db, slug: string): Promise<number> {
  return writeTx(db, async (tx) => {
    orgSeq += 1;
    const org = await tx
      .insertInto("organizations")
      .values({ slug: `org-${slug}-${orgSeq}`, name: "Org", created_at: 1 })
      .returning("id")
      .executeTakeFirstOrThrow();
    const p = await insertProject(tx, { orgId: Number(org.id), slug, name: slug, platform: "other", now: 1 });
    return p.id;
  });
}

/** Claims and digests until the queue has nothing available at `now`. */
export async function drain(db: Db, now: number, batchSize = 50): Promise<DigestResult> {
  const total: DigestResult = { events: 0, duplicates: 0, skipped: 0, failed: 0 };
  for (;;) {
    const items = await claimBatch(db, now, batchSize, 60_000);
    if (items.length === 0) return total;
    const r = await digestBatch(db, items, deps(now));
    total.events += r.events;
    total.duplicates += r.duplicates;
    total.skipped += r.skipped;
    total.failed += r.failed;
  }
}
