/**
 * What Sentry's project serializer says a project has received (its `has*` flags, latest release,
 * environments), read for many projects at once: one query per table, never one per project.
 * Sentry keeps these as flags set by the first item of a kind; Errata reads them from what it keeps.
 */
import { sql } from "kysely";
import type { Db } from "../db";
import { environmentsByProject } from "../issues/environments";

export interface ProjectFacts {
  /** the version of the newest release seen in the project, null when none */
  latestRelease: string | null;
  /** the environments its events carried, by name */
  environments: string[];
  hasMonitors: boolean;
  /** any user feedback (reports, the crash dialog, feedback items) */
  hasFeedbacks: boolean;
  /** feedback from the feedback widget / `feedback` envelope items (Sentry's "new" feedback) */
  hasNewFeedbacks: boolean;
  /** user reports naming an event (`user_report` items, the crash-report dialog) */
  hasUserReports: boolean;
  /** Sentry data categories ever accepted for the project (outcome counters): transaction, log_item, session… */
  accepted: Set<string>;
}

/** The categories whose acceptance answers a `has*` flag (outcome counters, src/core/outcomes). */
const FLAG_CATEGORIES = ["transaction", "span", "log_item", "log_byte", "session"];

/** The facts of a project nothing has happened to yet (and of one the caller did not read facts for). */
export function emptyProjectFacts(): ProjectFacts {
  return {
    latestRelease: null,
    environments: [],
    hasMonitors: false,
    hasFeedbacks: false,
    hasNewFeedbacks: false,
    hasUserReports: false,
    accepted: new Set<string>(),
  };
}

export async function readProjectFacts(db: Db, projectIds: number[]): Promise<Map<number, ProjectFacts>> {
  const facts = new Map<number, ProjectFacts>(projectIds.map((id) => [id, emptyProjectFacts()]));
  if (projectIds.length === 0) return facts;
  const k = db.kysely;
  const [monitors, feedback, outcomes, environments, releases] = await Promise.all([
    k.selectFrom("monitors").select("project_id").where("project_id", "in", projectIds).groupBy("project_id").execute(),
    k
      .selectFrom("user_feedback")
      .select(["project_id", "source"])
      .where("project_id", "in", projectIds)
      .groupBy(["project_id", "source"])
      .execute(),
    k
      .selectFrom("outcomes")
      .select(["project_id", "category"])
      .where("project_id", "in", projectIds)
      .where("outcome", "=", "accepted")
      .where("category", "in", FLAG_CATEGORIES)
      .groupBy(["project_id", "category"])
      .execute(),
    environmentsByProject(db, projectIds),
    // The newest release per project: the one created last (release ids grow with creation).
    k
      .selectFrom("release_projects as rp")
      .innerJoin("releases as r", "r.id", "rp.release_id")
      .select(["rp.project_id", "r.version"])
      .where("rp.project_id", "in", projectIds)
      .where("r.id", "=", sql<number>`(select max(rp2.release_id) from release_projects rp2 where rp2.project_id = rp.project_id)`)
      .execute(),
  ]);
  const at = (id: unknown) => facts.get(Number(id));
  for (const r of monitors) {
    const f = at(r.project_id);
    if (f) f.hasMonitors = true;
  }
  for (const r of feedback) {
    const f = at(r.project_id);
    if (!f) continue;
    f.hasFeedbacks = true;
    if (r.source === "feedback") f.hasNewFeedbacks = true;
    else f.hasUserReports = true;
  }
  for (const r of outcomes) at(r.project_id)?.accepted.add(r.category);
  for (const [id, names] of environments) {
    const f = at(id);
    if (f) f.environments = names.filter((n) => n !== "");
  }
  for (const r of releases) {
    const f = at(r.project_id);
    if (f) f.latestRelease = r.version;
  }
  return facts;
}
