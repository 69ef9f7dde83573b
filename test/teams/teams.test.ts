/**
 * Teams own projects, on both databases: a member sees the projects of their teams only — project
 * list and detail, the issue stream, issue pages, search suggestions, live counts, releases,
 * feedback, project settings — while admins and owners see all; the first team takes everyone,
 * new projects and newcomers join the default team; only admins and owners manage teams.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import { sentryIssue } from "../../src/server/sentry-api/shapes/issue";
import type { AppServices } from "../../src/server/services";
import type { IssueSummary, Role, Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { upsertFeedback } from "../../src/storage/feedback/feedback";
import { insertIssue } from "../../src/storage/issues/issues";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { recordReleases } from "../../src/storage/releases/releases";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

const NOW = Date.UTC(2026, 4, 10, 12, 0, 0);

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("teams on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: AppServices;
  const who = {} as Record<Role, Viewer>;
  const issue = {} as Record<"web" | "api", number>;

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "https://errata.example" });
    const auth = createAuth(db, config, "x".repeat(32));
    await migrateAuth(db, config, "x".repeat(32));
    s = createServices({ db, auth, config, log: createLogger("silent"), now: () => NOW });
    for (const role of ["viewer", "member", "admin", "owner"] as Role[]) {
      const u = await createUserWithPassword(auth, { email: `${role}@example.com`, password: "correct horse battery", name: role });
      who[role] = { userId: u.id, email: `${role}@example.com`, name: role };
    }
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: "acme", name: "Acme", now: 1 });
      for (const role of Object.keys(who) as Role[]) await upsertMember(tx, { orgId: org.id, userId: who[role].userId, role, now: 1 });
    });
    for (const name of ["web", "api"] as const) {
      const p = await s.projects.create(who.owner, "acme", { name, platform: "node" });
      await writeTx(db, async (tx) => {
        const base = { culprit: "x", type: "error", level: "error", metadata: {}, groupingVersion: "v2" };
        issue[name] = (
          await insertIssue(tx, { ...base, projectId: p.id, title: `${name} bug`, seenAt: NOW, release: `${name}@1`, hashes: [name] })
        ).id;
        await recordReleases(tx, [{ projectId: p.id, version: `${name}@1`, seenAt: NOW }], NOW);
        await upsertFeedback(tx, {
          projectId: p.id,
          feedbackId: (name === "web" ? "a" : "b").repeat(32),
          eventId: null,
          name: "Eve",
          email: "e@example.com",
          url: null,
          source: "user_report",
          comments: `${name} feedback`,
          createdAt: NOW,
        });
      });
    }
  });
  afterAll(async () => close());

  const seen = async (v: Viewer) => ({
    projects: (await s.projects.list(v, "acme")).map((p) => p.slug).sort(),
    stream: (await s.issueStream.search(v, "acme", { query: "" })).items.map((i) => i.title).sort(),
    releases: (await s.releases.list(v, "acme")).items.map((r) => r.version).sort(),
    feedback: (await s.feedback.list(v, "acme")).items.map((f) => f.comments).sort(),
    suggest: (await s.issueStream.suggest(v, "acme", { key: "project", prefix: "" })).sort(),
  });
  const ALL = {
    projects: ["api", "web"],
    stream: ["api bug", "web bug"],
    releases: ["api@1", "web@1"],
    feedback: ["api feedback", "web feedback"],
    suggest: ["api", "web"],
  };

  test("without teams every member sees every project; the first team takes everyone and everything", async () => {
    expect(await seen(who.member)).toEqual(ALL);
    const team = await s.teams.create(who.admin, "acme", { name: "Frontend" });
    expect(team.slug).toBe("frontend");
    expect(team.members).toHaveLength(4);
    expect(team.projects.map((p) => p.slug).sort()).toEqual(["api", "web"]);
    expect(await seen(who.member)).toEqual(ALL);
    expect(await codeOf(s.teams.create(who.admin, "acme", { name: "frontend" }))).toBe("conflict");
  });

  test("a member sees only their teams' projects, everywhere; admins and owners see all", async () => {
    const backend = await s.teams.create(who.owner, "acme", { name: "Backend" });
    expect(backend.members).toEqual([]);
    await s.teams.setProject(who.admin, "acme", "frontend", "api", false);
    await s.teams.setProject(who.admin, "acme", "backend", "api", true);
    const only = { projects: ["web"], stream: ["web bug"], releases: ["web@1"], feedback: ["web feedback"], suggest: ["web"] };
    expect(await seen(who.member)).toEqual(only);
    expect(await seen(who.viewer)).toEqual(only);
    expect(await seen(who.admin)).toEqual(ALL);
    expect(await seen(who.owner)).toEqual(ALL);

    expect(await codeOf(s.issues.get(who.member, "acme", issue.api))).toBe("not_found");
    expect(await codeOf(s.issueStream.issuePage(who.member, "acme", issue.api))).toBe("not_found");
    expect(await codeOf(s.issueActions.update(who.member, "acme", issue.api, { status: "resolved" }))).toBe("not_found");
    expect(await codeOf(s.projects.get(who.member, "acme", "api"))).toBe("not_found");
    expect(await codeOf(s.projects.settings(who.member, "acme", "api"))).toBe("not_found");
    expect(await codeOf(s.keys.list(who.member, "acme", "api"))).toBe("not_found");
    expect(await codeOf(s.issueStream.search(who.member, "acme", { project: "api" }))).toBeUndefined();
    expect((await s.issueStream.search(who.member, "acme", { query: "project:api" })).items).toEqual([]);
    expect((await s.issueStream.changesSince(who.member, "acme", { since: NOW - 1000 })).created).toBe(1);
    expect((await s.issueStream.changesSince(who.admin, "acme", { since: NOW - 1000 })).created).toBe(2);
    expect((await s.issueActions.update(who.member, "acme", issue.web, { status: "resolved" })).status).toBe("resolved");

    // Joining the team opens its projects.
    await s.teams.setMember(who.admin, "acme", "backend", who.member.userId, true);
    expect((await seen(who.member)).projects).toEqual(["api", "web"]);
    await s.teams.setMember(who.admin, "acme", "backend", who.member.userId, false);
    expect((await seen(who.member)).projects).toEqual(["web"]);
  });

  test("new projects go to the default team; only admins and owners manage teams", async () => {
    await s.projects.create(who.owner, "acme", { name: "mobile", platform: "node" });
    expect((await s.projects.list(who.member, "acme")).map((p) => p.slug).sort()).toEqual(["mobile", "web"]);
    const page = await s.teams.page(who.admin, "acme");
    expect(page.teams.map((t) => [t.slug, t.projects.map((p) => p.slug).sort()])).toEqual([
      ["frontend", ["mobile", "web"]],
      ["backend", ["api"]],
    ]);
    for (const v of [who.member, who.viewer]) {
      expect(await codeOf(s.teams.page(v, "acme"))).toBe("forbidden");
      expect(await codeOf(s.teams.create(v, "acme", { name: "Mine" }))).toBe("forbidden");
      expect(await codeOf(s.teams.setMember(v, "acme", "backend", v.userId, true))).toBe("forbidden");
      expect(await codeOf(s.teams.setProject(v, "acme", "frontend", "api", true))).toBe("forbidden");
    }
    // chosen at creation: the project joins the named teams only, not the default one
    await s.projects.create(who.owner, "acme", { name: "jobs", platform: "node", teams: ["backend"] });
    expect((await s.teams.page(who.admin, "acme")).teams.map((t) => [t.slug, t.projects.some((p) => p.slug === "jobs")])).toEqual([
      ["frontend", false],
      ["backend", true],
    ]);
    expect((await s.projects.list(who.member, "acme")).map((p) => p.slug)).not.toContain("jobs");
    const fieldOf = async (teams: string[]) => {
      try {
        await s.projects.create(who.owner, "acme", { name: `x-${teams.length}`, platform: "node", teams });
      } catch (e) {
        return (e as { code: string; fields?: Array<{ field: string }> }).fields?.[0]?.field ?? (e as { code: string }).code;
      }
    };
    expect(await fieldOf(["nope"])).toBe("teams");
    expect(await fieldOf([])).toBe("teams");
    expect(await codeOf(s.teams.setProject(who.admin, "acme", "frontend", "nope", true))).toBe("not_found");
    expect(await codeOf(s.teams.setMember(who.admin, "acme", "nope", who.member.userId, true))).toBe("not_found");
    await s.teams.remove(who.owner, "acme", "backend");
    expect((await s.teams.page(who.owner, "acme")).teams.map((t) => t.slug)).toEqual(["frontend"]);
  });

  test("an issue is assigned to a team (Sentry's team:<id> or #slug); search, stream and REST shape show it", async () => {
    const team = (await s.teams.page(who.owner, "acme")).teams.find((t) => t.slug === "frontend");
    if (!team) throw new Error("the frontend team is gone");
    const byId = await s.issueActions.update(who.member, "acme", issue.web, { assignedTo: `team:${team.id}` });
    expect(byId.assignee).toEqual({ id: `team:${team.id}`, email: "", name: "#frontend" });
    const stream = await s.issueStream.search(who.member, "acme", { query: "assigned:#frontend" });
    expect(stream.items.map((i) => i.id)).toEqual([issue.web]);
    expect((await s.issueStream.search(who.member, "acme", { query: "assigned:none" })).items.map((i) => i.id)).not.toContain(issue.web);
    const listed = await s.issues.list(who.owner, "acme", { query: "assigned:#frontend" });
    expect(sentryIssue(listed.items[0] as IssueSummary, "https://errata.example", "acme").assignedTo).toEqual({
      type: "team",
      id: String(team.id),
      name: "frontend",
    });
    // The pickers offer teams after members.
    expect((await s.issueStream.issuePage(who.member, "acme", issue.web)).members.map((m) => m.name)).toContain("#frontend");
    // #slug works as an assignee too; a member replaces the team; unknown teams are refused.
    await s.issueActions.update(who.member, "acme", issue.web, { assignedTo: "" });
    expect((await s.issueActions.update(who.member, "acme", issue.web, { assignedTo: "#frontend" })).assignee?.id).toBe(`team:${team.id}`);
    expect((await s.issueActions.update(who.member, "acme", issue.web, { assignedTo: who.admin.email })).assignee?.name).toBe("admin");
    expect((await s.issueStream.search(who.member, "acme", { query: "assigned:#frontend" })).items).toEqual([]);
    expect(await codeOf(s.issueActions.update(who.member, "acme", issue.web, { assignedTo: "team:999999" }))).toBe("validation_failed");
    expect(await codeOf(s.issueActions.update(who.member, "acme", issue.web, { assignedTo: "#nope" }))).toBe("validation_failed");
    expect(await codeOf(s.issueActions.update(who.viewer, "acme", issue.web, { assignedTo: `team:${team.id}` }))).toBe("forbidden");
  });
});
