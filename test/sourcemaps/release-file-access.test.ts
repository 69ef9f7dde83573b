/**
 * Who may upload a legacy release file to a project, on both databases: `artifact.upload` of the
 * permission table (members and up) checked before the project is looked up, and team visibility
 * (SPEC §6): a member outside the project's teams gets the same 404 as for a project that does not
 * exist, and nothing is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertTeam, setTeamMember, setTeamProject } from "../../src/storage/members/teams";
import { upsertMember } from "../../src/storage/orgs/orgs";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";
import { seedProject } from "../ingest/helpers";

const viewer = (userId: string): Viewer => ({ userId, email: `${userId}@example.com`, name: userId });

function fileRequest(name: string): Request {
  const form = new FormData();
  form.append("file", new Blob(["console.log(1)\n"]), "app.js");
  form.append("name", name);
  return new Request("http://errata.test/files/", { method: "POST", body: form });
}

describe.each(await dialects())("release-file uploads and team visibility on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let services: AppServices;
  let orgSlug: string;

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent" });
    services = createServices({ db, auth: createAuth(db, config, "x".repeat(32)), config, log: createLogger("silent") });
    const p = await seedProject(db, "web");
    orgSlug = (await db.kysely.selectFrom("organizations").select("slug").where("id", "=", p.orgId).executeTakeFirstOrThrow()).slug;
    await writeTx(db, async (tx) => {
      for (const [userId, role] of [
        ["owner", "owner"],
        ["insider", "member"],
        ["outsider", "member"],
        ["viewer", "viewer"],
      ] as const)
        await upsertMember(tx, { orgId: p.orgId, userId, role, now: 1 });
      // Once the organization has a team, members see only their teams' projects.
      const team = await insertTeam(tx, { orgId: p.orgId, slug: "web", name: "Web", now: 1 });
      await setTeamProject(tx, team, p.projectId, true);
      await setTeamMember(tx, team, "insider", true);
    });
  });
  afterAll(async () => close?.());

  const upload = (who: string, project: string, name: string) =>
    services.artifacts.uploadReleaseFile(viewer(who), orgSlug, project, "web@1.0.0", fileRequest(name));

  test("members of the project's team and admins upload; a member outside its teams cannot, nor learn it exists", async () => {
    expect(await upload("insider", "web", "~/a.js")).toMatchObject({ name: "~/a.js" });
    expect(await upload("owner", "web", "~/b.js")).toMatchObject({ name: "~/b.js" });
    await expect(upload("outsider", "web", "~/c.js")).rejects.toMatchObject({ code: "not_found", message: "Project not found." });
    await expect(upload("owner", "nope", "~/c.js")).rejects.toMatchObject({ code: "not_found", message: "Project not found." });
    // The role is refused before any lookup: a viewer learns nothing of which projects exist.
    await expect(upload("viewer", "web", "~/c.js")).rejects.toMatchObject({ code: "forbidden" });
    await expect(upload("viewer", "nope", "~/c.js")).rejects.toMatchObject({ code: "forbidden" });
    const stored = await db.kysely.selectFrom("artifact_files").select("url").orderBy("url").execute();
    expect(stored.map((r) => r.url)).toEqual(["~/a.js", "~/b.js"]);
  });

  test("a release (and so a bundle) names only projects the caller sees: a hidden one is as unknown as a missing one", async () => {
    const create = (who: string, version: string) => services.artifacts.createRelease(viewer(who), orgSlug, { version, projects: ["web"] });
    expect((await create("insider", "insider@1")).release).toMatchObject({ version: "insider@1" });
    await expect(create("outsider", "outsider@1")).rejects.toMatchObject({
      code: "validation_failed",
      message: "Unknown project(s): web.",
    });
    const versions = await db.kysely.selectFrom("releases").select("version").where("version", "like", "%sider@1").execute();
    expect(versions.map((r) => r.version)).toEqual(["insider@1"]);
  });
});
