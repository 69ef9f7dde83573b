/**
 * The environment lists of Sentry's environment endpoints (listEnvironments), on both databases:
 * the same names the stream's filter menu derives from the tag counts, scoped to an org and the
 * projects a viewer sees, in JavaScript's string order whatever the database's collation.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { listEnvironments } from "../../src/storage/issues/environments";
import { tagValueSuggestions } from "../../src/storage/issues/stats";
import { insertOrg } from "../../src/storage/orgs/orgs";
import { insertProject } from "../../src/storage/orgs/projects";
import { dialects, openTestDb } from "../helpers/test-db";

let nextIssue = 1;

/** An org with a project per entry, each with one issue per environment name (and a release tag). */
async function seed(db: Db, slug: string, projects: string[][]): Promise<{ orgId: number; projectIds: number[] }> {
  return writeTx(db, async (tx) => {
    const org = await insertOrg(tx, { slug, name: slug, now: 1 });
    const projectIds: number[] = [];
    for (const [i, envs] of projects.entries()) {
      const p = await insertProject(tx, { orgId: org.id, slug: `${slug}-${i}`, name: `${slug}-${i}`, platform: "node", now: 1 });
      projectIds.push(p.id);
      for (const env of envs) {
        const issueId = nextIssue++;
        const row = { issue_id: issueId, project_id: p.id, count: 1 + (issueId % 7), last_seen: 1 };
        await tx
          .insertInto("issue_tag_values")
          .values([
            { ...row, key: "environment", value: env },
            { ...row, key: "release", value: `not-an-environment-${env}` },
          ])
          .execute();
      }
    }
    return { orgId: org.id, projectIds };
  });
}

/** What the environment endpoints answered before they read the list directly (the filter menu's 30). */
async function viaFilterMenu(db: Db, projectIds: number[]): Promise<string[]> {
  const rows = await tagValueSuggestions(db, { projectIds, key: "environment", prefix: "", limit: 30 });
  return rows.map((r) => r.value).sort();
}

describe.each(await dialects())("environment lists on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
  });
  afterAll(async () => close());

  test("the org's environments, or those of the projects a viewer sees, each once and in JavaScript order", async () => {
    // Mixed case and non-ASCII: PostgreSQL's collation would order these otherwise.
    const acme = await seed(db, `acme-${dialect}`, [
      ["production", "staging", "production", "Zeta", "éclair"],
      ["staging", "canary", "_pr-12"],
      [],
    ]);
    const other = await seed(db, `other-${dialect}`, [["secret-env"]]);
    const [web, api, empty] = acme.projectIds as [number, number, number];

    const all = await listEnvironments(db, acme.orgId, null);
    expect(all).toEqual(["Zeta", "_pr-12", "canary", "production", "staging", "éclair"]);
    expect(all).toEqual(await viaFilterMenu(db, acme.projectIds));
    expect(await listEnvironments(db, acme.orgId, [web])).toEqual(["Zeta", "production", "staging", "éclair"]);
    expect(await listEnvironments(db, acme.orgId, [api, empty])).toEqual(["_pr-12", "canary", "staging"]);
    expect(await listEnvironments(db, acme.orgId, [empty])).toEqual([]);
    expect(await listEnvironments(db, acme.orgId, [])).toEqual([]);
    // Another org's project never answers, even when its id is passed.
    expect(await listEnvironments(db, acme.orgId, other.projectIds)).toEqual([]);
    expect(await listEnvironments(db, other.orgId, null)).toEqual(["secret-env"]);
  });

  test("every environment, beyond the filter menu's 30 most used", async () => {
    const names = Array.from({ length: 45 }, (_, i) => `env-${String(i).padStart(2, "0")}`);
    const many = await seed(db, `many-${dialect}`, [names.slice(0, 25), names.slice(20)]);
    expect(await listEnvironments(db, many.orgId, null)).toEqual(names);
    expect(await viaFilterMenu(db, many.projectIds)).toHaveLength(30);
  });
});
