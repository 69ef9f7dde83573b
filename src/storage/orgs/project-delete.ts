/**
 * Deleting a project (Sentry's `DELETE /projects/{org}/{project}/`): the project row, its DSN keys
 * and every row that belongs to it, in one transaction so nothing is left half. There are no
 * foreign keys to cascade, so each table is named here; a table added later with a `project_id`
 * must be added too (test/compat/sentry-discover-api.test.ts counts the rows left).
 * Queue rows are left to the digest, which drops items of a project that no longer exists.
 */
import type { Tx } from "../dialect";
import { isPostgres } from "../dialect";

/** Tables whose rows hang off a project's issues, monitors or rules (no project_id of their own). */
async function deleteChildren(tx: Tx, projectId: number): Promise<void> {
  const issues = tx.selectFrom("issues").select("id").where("project_id", "=", projectId);
  await tx.deleteFrom("issue_users").where("issue_id", "in", issues).execute();
  await tx.deleteFrom("issue_hourly").where("issue_id", "in", issues).execute();
  await tx.deleteFrom("issue_daily").where("issue_id", "in", issues).execute();
  await tx.deleteFrom("alert_mutes").where("issue_id", "in", issues).execute();
  await tx.deleteFrom("alert_rule_issues").where("issue_id", "in", issues).execute();
  const rules = tx.selectFrom("alert_rules").select("id").where("project_id", "=", projectId);
  await tx.deleteFrom("alert_rule_issues").where("rule_id", "in", rules).execute();
  await tx.deleteFrom("alert_rule_releases").where("rule_id", "in", rules).execute();
  const monitors = tx.selectFrom("monitors").select("id").where("project_id", "=", projectId);
  await tx.deleteFrom("monitor_environments").where("monitor_id", "in", monitors).execute();
  const uptime = tx.selectFrom("uptime_monitors").select("id").where("project_id", "=", projectId);
  await tx.deleteFrom("uptime_results").where("monitor_id", "in", uptime).execute();
}

/** Every table with a `project_id`, children before the rows they point at. */
const PROJECT_TABLES = [
  "notifications",
  "activity",
  "attachments",
  "event_debug_ids",
  "events",
  "issue_hashes",
  "issue_redirects",
  "issue_claims",
  "issue_tag_keys",
  "issue_tag_values",
  "issues",
  "log_records",
  "spans",
  "monitor_checkins",
  "monitors",
  "uptime_monitors",
  "alert_email_optouts",
  "alert_rules",
  "alert_channels",
  "artifact_bundle_projects",
  "outcomes",
  "project_ownership",
  "release_projects",
  "session_aggregates",
  "session_states",
  "session_users",
  "team_projects",
  "user_feedback",
  "replay_segments",
  "replay_errors",
  "replays",
  "project_keys",
] as const;

export async function deleteProjectAndData(tx: Tx, projectId: number): Promise<void> {
  await deleteChildren(tx, projectId);
  for (const table of PROJECT_TABLES) await tx.deleteFrom(table).where("project_id", "=", projectId).execute();
  // PostgreSQL keeps each event's dedupe key apart (0025); its rows go with the events.
  if (isPostgres(tx)) await tx.deleteFrom("event_keys").where("project_id", "=", projectId).execute();
  // Replay blobs in PostgreSQL's blob table go in this transaction; files (SQLite) right after the
  // commit (server/orgs/project-admin.ts), a crash in between left to the replay orphan sweep.
  await tx.deleteFrom("blobs").where("key", "like", `replays/${projectId}/%`).execute();
  await tx.deleteFrom("projects").where("id", "=", projectId).execute();
}
