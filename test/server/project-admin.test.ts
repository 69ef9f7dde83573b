/**
 * Project administration, releases and the feedback inbox on both databases: projects created by
 * admins only, DSN keys created / labelled / disabled / rotated as ingest sees them, settings
 * validated and read back the way retention and scrubbing read them, and the release and feedback
 * reads — with roles, token scopes and the tenant boundary enforced.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { readScrubSettings } from "../../src/core/scrub/scrub-event";
import { createLogger } from "../../src/log";
import { projectRetention } from "../../src/pipeline/retention";
import { createAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { upsertFeedback } from "../../src/storage/feedback/feedback";
import { insertActivities } from "../../src/storage/issues/activity";
import { insertIssue } from "../../src/storage/issues/issues";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { readProjectProcessing } from "../../src/storage/orgs/project-processing";
import { findIngestKey } from "../../src/storage/orgs/projects";
import { recordReleases } from "../../src/storage/releases/releases";
import { addSessionCounts, addSessionUser, markSessionUserCrashed } from "../../src/storage/releases/sessions";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

const NOW = Date.UTC(2026, 4, 10, 12, 0, 0);
const HOUR = 3_600_000;
const viewer = (userId: string, scopes?: string[]): Viewer => ({ userId, email: `${userId}@example.com`, name: userId, scopes });

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("project admin, releases and feedback on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: AppServices;
  const owner = viewer("owner");
  const admin = viewer("admin");
  const member = viewer("member");
  const view = viewer("viewer");
  const stranger = viewer("stranger");

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "https://errata.example", RETENTION_DAYS: "90" });
    s = createServices({ db, auth: createAuth(db, config, "x".repeat(32)), config, log: createLogger("silent"), now: () => NOW });
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: "acme", name: "Acme", now: 1 });
      const other = await insertOrg(tx, { slug: "other", name: "Other", now: 1 });
      for (const [userId, role] of [
        ["owner", "owner"],
        ["admin", "admin"],
        ["member", "member"],
        ["viewer", "viewer"],
      ] as const) {
        await upsertMember(tx, { orgId: org.id, userId, role, now: 1 });
      }
      await upsertMember(tx, { orgId: other.id, userId: "stranger", role: "owner", now: 1 });
    });
  });
  afterAll(async () => close());

  test("projects: admins and owners create them with a first key; others cannot; names are unique per org", async () => {
    const p = await s.projects.create(owner, "acme", { name: "Web App", platform: "javascript-nextjs" });
    expect(p).toMatchObject({ slug: "web-app", name: "Web App", platform: "javascript-nextjs" });
    expect(p.dsn).toMatch(new RegExp(`^https://[0-9a-f]{32}@errata\\.example/${p.id}$`));
    expect((await s.projects.create(admin, "acme", { name: "api", platform: "node" })).slug).toBe("api");
    expect(await codeOf(s.projects.create(admin, "acme", { name: "web app", platform: "node" }))).toBe("conflict");
    expect(await codeOf(s.projects.create(member, "acme", { name: "m", platform: "node" }))).toBe("forbidden");
    expect(await codeOf(s.projects.create(owner, "acme", { name: "x", platform: "Not A Platform!" }))).toBe("validation_failed");
    expect(await codeOf(s.projects.create(owner, "acme", { name: "", platform: "node" }))).toBe("validation_failed");
    expect(await codeOf(s.projects.create(viewer("owner", ["project:read"]), "acme", { name: "t", platform: "node" }))).toBe("forbidden");
    expect(await codeOf(s.projects.create(stranger, "acme", { name: "s", platform: "node" }))).toBe("not_found");
    expect((await s.projects.list(view, "acme")).map((x) => x.slug)).toEqual(["api", "web-app"]);
  });

  test("keys: create, label, disable and rotate as ingest sees them; members read, only admins change", async () => {
    const [first] = await s.keys.list(member, "acme", "web-app");
    expect(first).toMatchObject({ label: "Default", active: true });
    const ci = await s.keys.create(admin, "acme", "web-app", { label: "  CI  " });
    expect(ci.label).toBe("CI");
    expect((await findIngestKey(db, ci.publicKey))?.active).toBe(true);

    expect((await s.keys.update(owner, "acme", "web-app", ci.id, { label: "Build servers" })).label).toBe("Build servers");
    const disabled = await s.keys.update(owner, "acme", "web-app", ci.id, { active: false });
    expect(disabled.active).toBe(false);
    expect((await findIngestKey(db, ci.publicKey))?.active).toBe(false);

    const { key, retired } = await s.keys.rotate(admin, "acme", "web-app", (first as { id: number }).id);
    expect(key.label).toBe("Default");
    expect(key.publicKey).not.toBe(first?.publicKey);
    expect(retired.active).toBe(false);
    expect((await findIngestKey(db, key.publicKey))?.active).toBe(true);
    expect((await findIngestKey(db, first?.publicKey ?? ""))?.active).toBe(false);
    expect((await s.keys.list(view, "acme", "web-app")).map((k) => [k.label, k.active])).toEqual([
      ["Default", false],
      ["Build servers", false],
      ["Default", true],
    ]);
    // The project's DSN is its first active key.
    expect((await s.projects.get(member, "acme", "web-app")).dsn).toBe(key.dsn);

    expect(await codeOf(s.keys.create(member, "acme", "web-app", { label: "x" }))).toBe("forbidden");
    expect(await codeOf(s.keys.update(view, "acme", "web-app", ci.id, { active: true }))).toBe("forbidden");
    expect(await codeOf(s.keys.rotate(member, "acme", "web-app", ci.id))).toBe("forbidden");
    expect(await codeOf(s.keys.create(owner, "acme", "web-app", { label: "" }))).toBe("validation_failed");
    expect(await codeOf(s.keys.update(owner, "acme", "web-app", ci.id, { label: "x".repeat(65) }))).toBe("validation_failed");
    // A key of another project is not found through this one.
    expect(await codeOf(s.keys.update(owner, "acme", "api", ci.id, { active: true }))).toBe("not_found");
    expect(await codeOf(s.keys.list(stranger, "acme", "web-app"))).toBe("not_found");
  });

  test("settings: validated, stored where retention, scrubbing and grouping read them, reset with null", async () => {
    const before = await s.projects.settings(view, "acme", "web-app");
    expect(before.canManage).toBe(false);
    expect(before.retention).toMatchObject({ days: null, eventCap: null, defaultDays: 90 });
    expect(before.scrubbing).toEqual({ enabled: true, scrubIp: false, extraKeys: [], safeKeys: [] });
    expect(before.grouping.version).toBe("v3");

    const after = await s.projects.updateSettings(admin, "acme", "web-app", {
      retentionDays: 30,
      eventCap: 5000,
      scrubbing: { scrubIp: true, extraKeys: ["ssn", "ssn", "iban"] },
      groupingVersion: "v1",
      rateLimit: { eventsPerMinute: 120 },
    });
    expect(after.canManage).toBe(true);
    expect(after.retention).toMatchObject({ days: 30, eventCap: 5000 });
    expect(after.scrubbing).toEqual({ enabled: true, scrubIp: true, extraKeys: ["ssn", "iban"], safeKeys: [] });
    expect(after.grouping).toMatchObject({ version: "v1", previous: "v3", switchedAt: NOW });
    expect(after.rateLimit.eventsPerMinute).toBe(120);

    const stored = (await readProjectProcessing(db, [after.project.id])).get(after.project.id);
    expect(projectRetention(stored?.settings ?? {}, { days: 90, eventCap: 1_000_000 })).toEqual({ days: 30, eventCap: 5000 });
    expect(readScrubSettings(stored?.settings).extraKeys).toEqual(["ssn", "iban"]);
    expect(stored?.groupingVersion).toBe("v1");

    const reset = await s.projects.updateSettings(owner, "acme", "web-app", {
      retentionDays: null,
      rateLimit: null,
      scrubbing: { enabled: false },
    });
    expect(reset.retention).toMatchObject({ days: null, eventCap: 5000 });
    expect(reset.rateLimit.eventsPerMinute).toBeNull();
    expect(reset.scrubbing).toMatchObject({ enabled: false, scrubIp: true });

    try {
      await s.projects.updateSettings(owner, "acme", "web-app", { retentionDays: 0, groupingVersion: "v9", eventCap: 1.5 });
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe("validation_failed");
      expect(((e as { fields: Array<{ field: string }> }).fields ?? []).map((f) => f.field).sort()).toEqual([
        "eventCap",
        "groupingVersion",
        "retentionDays",
      ]);
    }
    expect(await codeOf(s.projects.updateSettings(owner, "acme", "web-app", { unknown: 1 }))).toBe("validation_failed");
    expect(await codeOf(s.projects.updateSettings(member, "acme", "web-app", { retentionDays: 10 }))).toBe("forbidden");
    expect(await codeOf(s.projects.updateSettings(viewer("owner", ["project:read"]), "acme", "web-app", { retentionDays: 10 }))).toBe(
      "forbidden",
    );
  });

  test("grouping rules: Sentry's fields, refused per bad line, stored, cleared; preview; authorization", async () => {
    const fields = await s.projects.updateGroupingRules(owner, "acme", "web-app", {
      fingerprintingRules: "error.type:Db* -> db",
      groupingEnhancements: "stack.module:vendor.* -group",
      name: "ignored here: issue 28 owns it",
    });
    expect(fields).toMatchObject({ fingerprintingRules: "error.type:Db* -> db", groupingEnhancements: "stack.module:vendor.* -group" });
    expect(await s.projects.groupingRules(view, "acme", "web-app")).toEqual(fields);
    const id = (await s.projects.get(owner, "acme", "web-app")).id;
    const stored = (await readProjectProcessing(db, [id])).get(id);
    expect(stored?.settings).toMatchObject({ fingerprintingRules: "error.type:Db* -> db" });
    try {
      await s.projects.updateGroupingRules(owner, "acme", "web-app", { groupingEnhancements: "ok:x -app\nstack.module:a -app\n-group" });
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe("validation_failed");
      expect((e as { fields: Array<{ field: string; message: string }> }).fields.map((f) => `${f.field} ${f.message.slice(0, 6)}`)).toEqual(
        ["groupingEnhancements line 1", "groupingEnhancements line 3"],
      );
    }
    // Unchanged after the refusal; "" clears.
    expect((await s.projects.groupingRules(view, "acme", "web-app")).groupingEnhancements).toBe("stack.module:vendor.* -group");
    expect(
      await s.projects.updateGroupingRules(owner, "acme", "web-app", { fingerprintingRules: "", groupingEnhancements: null }),
    ).toMatchObject({
      fingerprintingRules: "",
      groupingEnhancements: "",
    });
    expect(await s.projects.previewGrouping(owner, "acme", "web-app", { fingerprintingRules: "", groupingEnhancements: "" })).toMatchObject(
      {
        draftIssues: expect.any(Number),
      },
    );
    expect(await codeOf(s.projects.previewGrouping(owner, "acme", "web-app", { fingerprintingRules: "x", groupingEnhancements: "" }))).toBe(
      "validation_failed",
    );
    // The preview is part of editing the rules: who cannot change them cannot run it.
    expect(await codeOf(s.projects.previewGrouping(view, "acme", "web-app", { fingerprintingRules: "", groupingEnhancements: "" }))).toBe(
      "forbidden",
    );
    expect(await codeOf(s.projects.updateGroupingRules(member, "acme", "web-app", { fingerprintingRules: "" }))).toBe("forbidden");
    expect(await codeOf(s.projects.groupingRules(stranger, "acme", "web-app"))).toBe("not_found");
    expect(
      await codeOf(s.projects.previewGrouping(stranger, "acme", "web-app", { fingerprintingRules: "", groupingEnhancements: "" })),
    ).toBe("not_found");
  });

  test("releases: new issues, regressions, crash-free sessions, users and artifacts; paginated newest first", async () => {
    const web = await s.projects.get(owner, "acme", "web-app");
    const api = await s.projects.get(owner, "acme", "api");
    await writeTx(db, async (tx) => {
      await recordReleases(tx, [{ projectId: web.id, version: "1.0.0", seenAt: NOW - 10 * HOUR }], NOW - 10 * HOUR);
      await recordReleases(
        tx,
        [
          { projectId: web.id, version: "1.1.0", seenAt: NOW - 2 * HOUR },
          { projectId: api.id, version: "1.1.0", seenAt: NOW - HOUR },
        ],
        NOW - 2 * HOUR,
      );
      const base = { culprit: "x", type: "error", level: "error", metadata: {}, groupingVersion: "v2" };
      await insertIssue(tx, { ...base, projectId: web.id, title: "Old bug", seenAt: NOW - 10 * HOUR, release: "1.0.0", hashes: ["h1"] });
      const fresh = await insertIssue(tx, {
        ...base,
        projectId: web.id,
        title: "Fresh bug",
        seenAt: NOW - HOUR,
        release: "1.1.0",
        hashes: ["h2"],
      });
      await insertIssue(tx, { ...base, projectId: api.id, title: "API bug", seenAt: NOW - HOUR, release: "1.1.0", hashes: ["h3"] });
      const back = await insertIssue(tx, {
        ...base,
        projectId: web.id,
        title: "Came back",
        seenAt: NOW - 9 * HOUR,
        release: "1.0.0",
        hashes: ["h4"],
      });
      await insertActivities(
        tx,
        back.id,
        web.id,
        [{ kind: "regression", actorUserId: null, data: { release: "1.1.0", resolution: { kind: "now" } } }],
        NOW - 30 * 60_000,
      );
      await insertActivities(
        tx,
        fresh.id,
        web.id,
        [{ kind: "regression", actorUserId: null, data: { release: "1.1.0-beta", resolution: { kind: "now" } } }],
        NOW,
      );
      const hour = Math.floor((NOW - HOUR) / HOUR) * HOUR;
      await addSessionCounts(tx, [
        {
          projectId: web.id,
          release: "1.1.0",
          environment: "production",
          hour,
          delta: { total: 200, ok: 190, errored: 5, unhandled: 0, abnormal: 1, crashed: 4 },
          users: 2,
        },
      ]);
      await addSessionUser(tx, { projectId: web.id, release: "1.1.0", environment: "production", hour }, "u1");
      await addSessionUser(tx, { projectId: web.id, release: "1.1.0", environment: "production", hour }, "u2");
      await markSessionUserCrashed(tx, { projectId: web.id, release: "1.1.0", environment: "production", hour }, "u2");
      const org = await tx.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow();
      await tx
        .insertInto("artifact_bundles")
        .values({
          org_id: Number(org.id),
          checksum: "c".repeat(40),
          bundle_debug_id: null,
          release: "1.1.0",
          dist: "",
          file_count: 4,
          size: 2048,
          created_at: NOW,
        })
        .execute();
    });

    const page = await s.releases.list(view, "acme", { limit: 1 });
    expect(page.items.map((r) => r.version)).toEqual(["1.1.0"]);
    const r = page.items[0];
    expect(r?.projects.map((p) => p.slug)).toEqual(["web-app", "api"]);
    expect(r?.newIssues).toBe(2);
    expect(r?.sessions?.total).toBe(200);
    expect(r?.crashFreeSessions).toBeCloseTo(0.98, 5);
    expect(r?.users).toBe(2);
    expect(r?.crashFreeUsers).toBeCloseTo(0.5, 5);
    expect(r?.artifacts).toEqual({ bundles: 1, files: 4 });
    const next = await s.releases.list(view, "acme", { limit: 1, cursor: page.nextCursor });
    expect(next.items.map((x) => [x.version, x.newIssues, x.sessions, x.crashFreeSessions, x.crashFreeUsers])).toEqual([
      ["1.0.0", 2, null, null, null],
    ]);
    expect(next.nextCursor).toBeNull();
    expect((await s.releases.list(view, "acme", { project: "api" })).items.map((x) => x.version)).toEqual(["1.1.0"]);

    const d = await s.releases.get(member, "acme", "1.1.0");
    expect(d.newIssueList.map((i) => i.title).sort()).toEqual(["API bug", "Fresh bug"]);
    expect(d.regressions.map((x) => x.issue.title)).toEqual(["Came back"]);
    expect(d.sessionDays.reduce((n, x) => n + x.crashed, 0)).toBe(4);
    expect(d.artifactList).toMatchObject([{ kind: "bundle", files: 4, size: 2048 }]);

    expect(await codeOf(s.releases.get(member, "acme", "9.9.9"))).toBe("not_found");
    expect(await codeOf(s.releases.get(stranger, "acme", "1.1.0"))).toBe("not_found");
    expect(await codeOf(s.releases.list(viewer("owner", ["event:read"]), "acme"))).toBe("forbidden");
    expect((await s.releases.list(viewer("owner", ["project:releases"]), "acme")).items.length).toBe(2);
    expect(await codeOf(s.releases.list(view, "acme", { cursor: "bogus" }))).toBe("validation_failed");
  });

  test("feedback: newest first across projects with the reported event's issue, by cursor", async () => {
    const web = await s.projects.get(owner, "acme", "web-app");
    const api = await s.projects.get(owner, "acme", "api");
    const eventId = "a".repeat(32);
    await writeTx(db, async (tx) => {
      const issue = await tx.selectFrom("issues").select(["id", "short_id"]).where("title", "=", "Fresh bug").executeTakeFirstOrThrow();
      await tx
        .insertInto("events")
        .values({
          project_id: web.id,
          issue_id: Number(issue.id),
          event_id: eventId,
          received_at: NOW,
          timestamp: NOW,
          level: "error",
          platform: "javascript",
          release: null,
          environment: null,
          title: "Fresh bug",
          culprit: "x",
          user_key: null,
          trace_id: null,
          digest: null,
          size: 1,
          payload: Buffer.from([0]),
        })
        .execute();
      const f = { email: "e@example.com", url: null, source: "user_report" as const };
      await upsertFeedback(tx, {
        ...f,
        projectId: web.id,
        feedbackId: eventId,
        eventId,
        name: "Eve",
        comments: "It broke when I paid",
        createdAt: NOW - 1000,
      });
      await upsertFeedback(tx, {
        ...f,
        projectId: api.id,
        feedbackId: "b".repeat(32),
        eventId: null,
        name: "Bob",
        comments: "<script>alert(1)</script>",
        createdAt: NOW,
      });
    });
    const first = await s.feedback.list(view, "acme", { limit: 1 });
    expect(first.items.map((f) => [f.name, f.projectSlug, f.issue])).toEqual([["Bob", "api", null]]);
    const second = await s.feedback.list(view, "acme", { limit: 1, cursor: first.nextCursor });
    expect(second.items[0]).toMatchObject({
      name: "Eve",
      projectSlug: "web-app",
      issue: { title: "Fresh bug", shortId: expect.stringMatching(/^WEB-APP-\d+$/) },
    });
    expect(second.nextCursor).toBeNull();
    expect((await s.feedback.list(view, "acme", { project: "web-app" })).items.map((f) => f.name)).toEqual(["Eve"]);
    expect(await codeOf(s.feedback.list(stranger, "acme"))).toBe("not_found");
    expect(await codeOf(s.feedback.list(viewer("owner", ["project:read"]), "acme"))).toBe("forbidden");
  });
});
