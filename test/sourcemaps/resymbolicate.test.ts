/**
 * The digest side of source maps on both databases, without HTTP: symbolication inside
 * `digestBatch`, re-symbolication when maps arrive late (bounded by count and age), grouping v2
 * (which hashes frames) not splitting an issue across the upload, and new uploads seen at once.
 */
import pino from "pino";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { digestBatch, sha256Hex } from "../../src/pipeline/digest-batch";
import { createResymbolicator } from "../../src/pipeline/resymbolicate";
import { expireBundles } from "../../src/pipeline/retention";
import { createSymbolicator, type Symbolicator } from "../../src/pipeline/symbolicate-event";
import { createArtifactServices } from "../../src/server/releases/artifacts";
import type { Db } from "../../src/storage/db";
import { getEvent } from "../../src/storage/events/events";
import { claimBatch, enqueueMany } from "../../src/storage/queue/queue";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";
import { createProject, LIMITS } from "../pipeline/helpers";
import { buildBundle, injectedApp, sha1, vectorEvent } from "./helpers";

const log = pino({ level: "silent" });
const NOW = Date.now();
const DAY = 24 * 3600 * 1000;
const FILE = "https://shop.example.com/app.min.js";

describe.each(await dialects())("digest-time source maps on %s", (dialect) => {
  let db: Db;
  const tmp = tempDir("assemble-scratch-");
  let close: () => Promise<void>;
  let projectId: number;
  let orgId: number;
  let symbolicator: Symbolicator;

  beforeEach(async () => {
    ({ db, close } = await openTestDb(dialect));
    projectId = await createProject(db, "web");
    // v2 hashes the frames: a minified and a readable trace of one crash hash differently.
    await db.kysely.updateTable("projects").set({ grouping_version: "v2" }).where("id", "=", projectId).execute();
    orgId = Number((await db.kysely.selectFrom("projects").select("org_id").where("id", "=", projectId).executeTakeFirstOrThrow()).org_id);
    symbolicator = createSymbolicator(db, log, { cacheBytes: 64 << 20, refreshMs: 0 });
  });
  afterEach(async () => close());

  async function ingest(event: Record<string, unknown>, receivedAt = NOW): Promise<string> {
    await enqueueMany(db, [{ projectId, keyId: 1, receivedAt, clientIp: null, kind: "store", body: Buffer.from(JSON.stringify(event)) }]);
    const items = await claimBatch(db, NOW + 1, 100, 60_000);
    await digestBatch(db, items, { now: NOW, limits: LIMITS, log, hash: sha256Hex, symbolicate: (e, p) => symbolicator.symbolicate(e, p) });
    return event.event_id as string;
  }

  async function upload(app: { debugId: string; js: string; map: string }): Promise<void> {
    const services = createArtifactServices({
      db,
      config: loadConfig({}).sourcemaps,
      publicUrl: "http://errata.test",
      log,
      now: () => NOW,
      membershipOrThrow: async () => ({ id: orgId, slug: "org", name: "Org", role: "owner" }),
      // Only the bundle path runs here; legacy release files (the one caller) are not uploaded.
      projectOrThrow: async () => {
        throw new Error("not used by bundle uploads");
      },
      tmpDir: tmp,
    });
    const viewer = { userId: "u", email: "u@example.com", name: "U", scopes: ["project:releases"] };
    const bundle = buildBundle([
      { url: "~/app.min.js", type: "minified_source", content: app.js, headers: { "debug-id": app.debugId, sourcemap: "app.min.js.map" } },
      { url: "~/app.min.js.map", type: "source_map", content: app.map, headers: { "debug-id": app.debugId } },
    ]);
    const form = new FormData();
    form.append("file", new Blob([bundle]), sha1(bundle));
    await services.uploadChunks(viewer, "org", new Request("http://errata.test/x", { method: "POST", body: form }));
    const res = await services.assembleBundle(viewer, "org", { checksum: sha1(bundle), chunks: [sha1(bundle)], projects: ["web"] });
    expect(res.state).toBe("ok");
  }

  const stored = async (id: string) => (await getEvent(db, projectId, id)) as NonNullable<Awaited<ReturnType<typeof getEvent>>>;
  const top = (e: { event: Record<string, unknown> }) =>
    (
      e.event as ReturnType<typeof vectorEvent> & {
        exception: { values: Array<{ stacktrace: { frames: Array<Record<string, unknown>> } }> };
      }
    ).exception.values[0]?.stacktrace.frames.at(-1);

  test("upload first: events are readable at digest time, even right after a cached miss", async () => {
    const app = injectedApp();
    const before = await stored(await ingest(vectorEvent({ file: FILE, debugId: app.debugId })));
    expect(top(before)).toMatchObject({ function: "a", data: { sourcemap_error: "missing_sourcemap" } });
    await upload(app);
    const after = await stored(await ingest(vectorEvent({ file: FILE, debugId: app.debugId })));
    expect(top(after)).toMatchObject({ function: "thrower", filename: "src/app.js", lineno: 2 });
  });

  test("bundles: a resolved frame records the bundle's use; unused ones expire with their files, used ones stay", async () => {
    const used = injectedApp();
    const unused = injectedApp();
    await upload(used);
    await upload(unused);
    const bundles = () => db.kysely.selectFrom("artifact_bundles").select(["id", "last_used_at"]).orderBy("id").execute();
    const [first, second] = await bundles();
    expect(first?.last_used_at ?? null).toBeNull();
    // Both were uploaded 100 days ago; only `used` resolves a frame now.
    await db.kysely
      .updateTable("artifact_bundles")
      .set({ created_at: NOW - 100 * DAY })
      .execute();
    const e = await stored(await ingest(vectorEvent({ file: FILE, debugId: used.debugId })));
    expect(top(e)).toMatchObject({ function: "thrower" });
    await expect.poll(async () => Number((await bundles())[0]?.last_used_at ?? 0)).toBeGreaterThanOrEqual(NOW);

    expect(await expireBundles(db, NOW - 90 * DAY, async () => {})).toBe(1);
    expect((await bundles()).map((b) => Number(b.id))).toEqual([Number(first?.id)]);
    const files = await db.kysely.selectFrom("artifact_files").select("bundle_id").execute();
    expect(files.length).toBeGreaterThan(0);
    expect(files.every((f) => Number(f.bundle_id) === Number(first?.id))).toBe(true);
    const links = await db.kysely.selectFrom("artifact_bundle_projects").select("bundle_id").execute();
    expect(links.map((l) => Number(l.bundle_id))).toEqual([Number(first?.id)]);
    expect(Number(second?.id)).not.toBe(Number(first?.id));
    // The used bundle still resolves frames.
    expect(top(await stored(await ingest(vectorEvent({ file: FILE, debugId: used.debugId }))))).toMatchObject({ function: "thrower" });
  });

  test("events first: re-symbolication rewrites them in place, and v2 grouping does not split the issue", async () => {
    const app = injectedApp();
    const firstId = await ingest(vectorEvent({ file: FILE, debugId: app.debugId }));
    const first = await stored(firstId);
    expect(top(first)).toMatchObject({ function: "a" });
    // Before the upload, a readable trace of the same crash would be a different v2 group.
    await upload(app);
    const resym = createResymbolicator(db, symbolicator, log, { days: 7, maxEvents: 100, now: () => NOW });
    expect(await resym.tick()).toBe(1);
    const rewritten = await stored(firstId);
    expect(top(rewritten)).toMatchObject({ function: "thrower", filename: "src/app.js", context_line: '  throw new Error("boom");' });
    expect(rewritten.issueId).toBe(first.issueId);
    expect(rewritten.culprit).not.toBe(first.culprit);
    const issue = await db.kysely.selectFrom("issues").select("culprit").where("id", "=", first.issueId).executeTakeFirstOrThrow();
    expect(issue.culprit).toBe(rewritten.culprit);

    const later = await stored(await ingest(vectorEvent({ file: FILE, debugId: app.debugId })));
    expect(top(later)).toMatchObject({ function: "thrower" });
    expect(later.issueId).toBe(first.issueId);
    expect(await db.kysely.selectFrom("issues").select("id").execute()).toHaveLength(1);
    // Nothing left to do.
    expect(await resym.tick()).toBe(0);
  });

  test("re-symbolication is bounded: recent events only, at most maxEvents per upload, in small batches", async () => {
    const app = injectedApp();
    const old = await ingest(vectorEvent({ file: FILE, debugId: app.debugId }), NOW - 8 * DAY);
    const recent: string[] = [];
    for (let i = 0; i < 5; i++) recent.push(await ingest(vectorEvent({ file: FILE, debugId: app.debugId }), NOW - i * 1000));
    await upload(app);
    const resym = createResymbolicator(db, symbolicator, log, { days: 7, maxEvents: 3, batchSize: 2, now: () => NOW });
    expect(await resym.tick()).toBe(2);
    expect(await resym.tick()).toBe(1);
    expect(await resym.tick()).toBe(0);
    const readable = async (id: string) => top(await stored(id))?.function === "thrower";
    // Newest first: the three most recent were rewritten, the rest stay minified.
    expect(await Promise.all(recent.map(readable))).toEqual([true, true, true, false, false]);
    expect(await readable(old)).toBe(false);
    expect(await db.kysely.selectFrom("artifact_jobs").select("id").execute()).toEqual([]);
  });
});
