/**
 * Sentry's project `isMember` on both databases: the caller is on one of the project's teams. An
 * admin sees every project but is a member only of its own teams' projects; a member of the team
 * is one; an organization token is on no team.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { writeTx } from "../../src/storage/dialect";
import { insertTeam, setTeamMember, setTeamProject } from "../../src/storage/members/teams";
import { dialects } from "../helpers/test-db";
import { createWorld, type World } from "../lifecycle/helpers";

describe.each(await dialects())("project isMember on %s", (dialect) => {
  let w: World;
  beforeAll(async () => {
    w = await createWorld(dialect);
    const { org_id: orgId } = await w.db.kysely
      .selectFrom("projects")
      .select("org_id")
      .where("id", "=", w.projectId)
      .executeTakeFirstOrThrow();
    await writeTx(w.db, async (tx) => {
      const team = await insertTeam(tx, { orgId: Number(orgId), slug: "web-team", name: "Web", now: 1 });
      await setTeamProject(tx, team, w.projectId, true);
      await setTeamMember(tx, team, w.member.userId, true);
    });
  });
  afterAll(async () => w?.close());

  test("on the project's team: a member; an admin who only sees it: not", async () => {
    const isMember = async (who: typeof w.member) =>
      (await w.services.projects.sentryFacts(who, "acme", [w.projectId])).memberOf.has(w.projectId);
    expect(await isMember(w.member)).toBe(true);
    expect(await isMember(w.admin)).toBe(false);
    expect(await isMember(w.owner)).toBe(false);
  });
});
