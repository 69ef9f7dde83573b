/**
 * The environments a project's events carried (Sentry's environment lists), read from the issue
 * tag counts the digest keeps (`issue_tag_values`, key `environment`).
 */
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db";

/**
 * (project, environment) pairs of the projects `roots` selects from `projects p`. A project has a
 * row per issue and environment, so reading them all grows with its issues; the recursive query
 * instead jumps from one name to the next on the (project_id, key, value) index (a "loose index
 * scan"), one lookup per project and name, on SQLite and PostgreSQL alike.
 */
async function environmentPairs(db: Db, roots: RawBuilder<unknown>): Promise<Array<{ project_id: number; value: string }>> {
  const next = (project: RawBuilder<unknown>, after: RawBuilder<unknown>) =>
    sql`(select t.value from issue_tag_values t
          where t.project_id = ${project} and t.key = 'environment' ${after}
          order by t.value limit 1)`;
  const { rows } = await sql<{ project_id: number; value: string }>`
    with recursive env(project_id, value) as (
      select p.id, ${next(sql.ref("p.id"), sql``)} from projects p where ${roots}
      union all
      select env.project_id, ${next(sql.ref("env.project_id"), sql`and t.value > env.value`)} from env where env.value is not null
    )
    select project_id, value from env where value is not null`.execute(db.kysely);
  return rows;
}

/**
 * The environment names of an org's projects, sorted as JavaScript sorts strings (the database's
 * collation may differ). `projectIds`: only these (the ones a viewer sees); null: every project.
 */
export async function listEnvironments(db: Db, orgId: number, projectIds: number[] | null): Promise<string[]> {
  if (projectIds?.length === 0) return [];
  const onlyThese = projectIds ? sql`and p.id in (${sql.join(projectIds)})` : sql``;
  const pairs = await environmentPairs(db, sql`p.org_id = ${orgId} ${onlyThese}`);
  return [...new Set(pairs.map((r) => r.value))].sort();
}

/** Each project's environment names (Sentry's project `environments`), sorted as listEnvironments sorts them. */
export async function environmentsByProject(db: Db, projectIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(projectIds.map((id) => [id, []]));
  if (projectIds.length === 0) return out;
  for (const r of await environmentPairs(db, sql`p.id in (${sql.join(projectIds)})`)) out.get(Number(r.project_id))?.push(r.value);
  for (const names of out.values()) names.sort();
  return out;
}
