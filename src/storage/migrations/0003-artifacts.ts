import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { blobType, withId } from "../dialect";

/**
 * Source maps (issue 5): uploaded chunks, assembled bundles and their files (indexed by debug id
 * and by release URL), re-symbolication jobs, and which events wait for which debug id.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const blob = blobType(dialect);

  await db.schema
    .createTable("artifact_chunks")
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("checksum", "text", (c) => c.notNull())
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("data", blob, (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("artifact_chunks_pk", ["org_id", "checksum"])
    .execute();
  // Chunks never assembled are swept by age.
  await db.schema.createIndex("artifact_chunks_created").on("artifact_chunks").column("created_at").execute();

  await withId(db.schema.createTable("artifact_bundles"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("checksum", "text", (c) => c.notNull())
    .addColumn("bundle_debug_id", "text")
    .addColumn("release", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("dist", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("file_count", "integer", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("artifact_bundles_org_checksum", ["org_id", "checksum"])
    .execute();

  await db.schema
    .createTable("artifact_bundle_projects")
    .addColumn("bundle_id", "bigint", (c) => c.notNull())
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("artifact_bundle_projects_pk", ["bundle_id", "project_id"])
    .execute();

  await withId(db.schema.createTable("artifact_files"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("bundle_id", "bigint")
    .addColumn("release", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("dist", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("debug_id", "text")
    .addColumn("sourcemap", "text")
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("sha1", "text", (c) => c.notNull())
    .addColumn("data", blob, (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // Digest-time lookups: by debug id (artifact bundles) and by URL within a release (legacy).
  await db.schema.createIndex("artifact_files_debug_id").on("artifact_files").columns(["org_id", "debug_id", "type"]).execute();
  await db.schema.createIndex("artifact_files_release_url").on("artifact_files").columns(["org_id", "release", "dist", "url"]).execute();
  await db.schema.createIndex("artifact_files_bundle").on("artifact_files").column("bundle_id").execute();

  await withId(db.schema.createTable("artifact_jobs"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("debug_ids", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("available_at", "bigint", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("processed", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("artifact_jobs_available").on("artifact_jobs").columns(["available_at", "id"]).execute();

  await db.schema
    .createTable("event_debug_ids")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("debug_id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_debug_ids_pk", ["debug_id", "project_id", "event_id"])
    .execute();
  await db.schema.createIndex("event_debug_ids_received").on("event_debug_ids").column("received_at").execute();
}
