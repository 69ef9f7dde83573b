/**
 * The services that read what ingest stores, on both databases: outcome counters (admins and
 * owners of the organization only) and event attachments (anyone who may read the event), with
 * the tenant boundary and token scopes enforced.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { hourStart } from "../../src/core/outcomes";
import { createLogger } from "../../src/log";
import { createAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertAttachment } from "../../src/storage/events/attachments";
import { addOutcomesNow } from "../../src/storage/events/outcomes";
import { upsertMember } from "../../src/storage/orgs/orgs";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";
import { seedProject } from "./helpers";

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const EVENT = "9ec79c33ec9942ab8353589fcb2e04dc";
const viewer = (userId: string, scopes?: string[]): Viewer => ({ userId, email: `${userId}@example.com`, name: userId, scopes });

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  await expect(p).rejects.toMatchObject({ code });
}

describe.each(await dialects())("ingest data services on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let services: AppServices;
  let orgSlug: string;
  let otherSlug: string;
  let attachmentId: number;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent" });
    services = createServices({ db, auth: createAuth(db, config, "x".repeat(32)), config, log: createLogger("silent") });
    const p = await seedProject(db, "web");
    const other = await seedProject(db, "web");
    const slugs = await db.kysely.selectFrom("organizations").select(["id", "slug"]).execute();
    orgSlug = slugs.find((o) => Number(o.id) === p.orgId)?.slug ?? "";
    otherSlug = slugs.find((o) => Number(o.id) === other.orgId)?.slug ?? "";
    await writeTx(db, async (tx) => {
      await upsertMember(tx, { orgId: p.orgId, userId: "owner", role: "owner", now: 1 });
      await upsertMember(tx, { orgId: p.orgId, userId: "member", role: "member", now: 1 });
      await upsertMember(tx, { orgId: other.orgId, userId: "stranger", role: "owner", now: 1 });
      await insertAttachment(tx, {
        projectId: p.projectId,
        eventId: EVENT,
        name: "crash.log",
        contentType: "text/plain",
        attachmentType: "event.attachment",
        data: Buffer.from("boom\n"),
        createdAt: NOW,
      });
      await insertAttachment(tx, {
        projectId: other.projectId,
        eventId: EVENT,
        name: "secret.txt",
        contentType: "text/plain",
        attachmentType: "event.attachment",
        data: Buffer.from("no"),
        createdAt: NOW,
      });
    });
    await addOutcomesNow(db, [
      { projectId: p.projectId, keyId: p.keyId, hour: hourStart(NOW), category: "error", outcome: "accepted", reason: "", quantity: 41 },
      {
        projectId: p.projectId,
        keyId: p.keyId,
        hour: hourStart(NOW),
        category: "error",
        outcome: "rate_limited",
        reason: "key_quota",
        quantity: 2,
      },
      {
        projectId: p.projectId,
        keyId: p.keyId,
        hour: hourStart(NOW) - 3_600_000,
        category: "session",
        outcome: "accepted",
        reason: "",
        quantity: 3,
      },
      {
        projectId: other.projectId,
        keyId: other.keyId,
        hour: hourStart(NOW),
        category: "error",
        outcome: "accepted",
        reason: "",
        quantity: 99,
      },
    ]);
    await addOutcomesNow(db, [
      { projectId: p.projectId, keyId: p.keyId, hour: hourStart(NOW), category: "error", outcome: "accepted", reason: "", quantity: 1 },
    ]);
    const [a] = await services.attachments.list(viewer("member"), orgSlug, "web", EVENT);
    attachmentId = a?.id ?? -1;
  });
  afterAll(async () => close());

  test("outcomes: counters of the project in the range, for admins and owners", async () => {
    const rows = await services.outcomes.list(viewer("owner"), orgSlug, "web", { from: hourStart(NOW), to: hourStart(NOW) + 3_600_000 });
    expect(rows.map((r) => [r.category, r.outcome, r.reason, r.quantity])).toEqual([
      ["error", "accepted", "", 42],
      ["error", "rate_limited", "key_quota", 2],
    ]);
    expect(await services.outcomes.list(viewer("owner"), orgSlug, "web", { from: 0, to: NOW + 1 }).catch((e) => e.code)).toBe(
      "validation_failed",
    );
    expect((await services.outcomes.list(viewer("owner"), orgSlug, "web", { from: NOW - 86_400_000, to: NOW + 1 })).length).toBe(3);
    await expectCode(services.outcomes.list(viewer("member"), orgSlug, "web", { from: 0, to: 1 }), "forbidden");
    // The role is refused before the project is looked up: a member learns nothing of which exist.
    await expectCode(services.outcomes.list(viewer("member"), orgSlug, "nope", { from: 0, to: 1 }), "forbidden");
    await expectCode(services.outcomes.list(viewer("owner", ["event:read"]), orgSlug, "web", { from: 0, to: 1 }), "forbidden");
    await expectCode(services.outcomes.list(viewer("stranger"), orgSlug, "web", { from: 0, to: 1 }), "not_found");
    await expectCode(services.outcomes.list(viewer("owner"), orgSlug, "nope", { from: 0, to: 1 }), "not_found");
  });

  test("attachments: members read and download; other tenants, wrong events and missing scopes get nothing", async () => {
    const list = await services.attachments.list(viewer("member"), orgSlug, "web", EVENT.toUpperCase());
    expect(list).toMatchObject([{ name: "crash.log", contentType: "text/plain", size: 5, sha1: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
    const file = await services.attachments.download(viewer("member", ["event:read"]), orgSlug, "web", EVENT, attachmentId);
    expect(file.data.toString()).toBe("boom\n");
    await expectCode(services.attachments.download(viewer("stranger"), orgSlug, "web", EVENT, attachmentId), "not_found");
    // The other org's attachment id through this org's project: not found, never leaked.
    await expectCode(services.attachments.download(viewer("stranger"), otherSlug, "web", EVENT, attachmentId), "not_found");
    await expectCode(services.attachments.download(viewer("member"), orgSlug, "web", "f".repeat(32), attachmentId), "not_found");
    await expectCode(services.attachments.download(viewer("member"), orgSlug, "web", "not-an-id", attachmentId), "not_found");
    await expectCode(services.attachments.download(viewer("member", ["project:read"]), orgSlug, "web", EVENT, attachmentId), "forbidden");
  });
});
