import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * Indexes for the release and settings screens, so they stay cheap deep into a project's history:
 *
 * - releases of an organization newest first (the releases list paginates by (created_at, id));
 * - an issue's first release (the "new issues" of a release, counted for every row of the list);
 * - activity of one kind in a project ("regressions in this release");
 * - artifact bundles of a release (the artifacts of a release page, counted on the list).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.createIndex("releases_org_created").on("releases").columns(["org_id", "created_at", "id"]).execute();
  await db.schema.createIndex("issues_project_first_release").on("issues").columns(["project_id", "first_release"]).execute();
  await db.schema.createIndex("activity_project_kind").on("activity").columns(["project_id", "kind", "created_at"]).execute();
  await db.schema.createIndex("artifact_bundles_org_release").on("artifact_bundles").columns(["org_id", "release"]).execute();
}
