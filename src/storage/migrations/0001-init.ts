import { type Kysely, sql } from "kysely";
import type { DialectName } from "../db";
import { blobType, withId } from "../dialect";

/** The foundation schema: tenants, projects and keys, the ingest queue, issues and events. */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  const blob = blobType(dialect);

  // Installation-wide values shared by every process (e.g. the session-signing secret).
  await db.schema
    .createTable("installation")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("organizations"), dialect)
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("members")
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("members_pk", ["org_id", "user_id"])
    .execute();
  await db.schema.createIndex("members_user").on("members").column("user_id").execute();

  await withId(db.schema.createTable("projects"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("platform", "text", (c) => c.notNull().defaultTo("other"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("next_short_id", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("grouping_version", "text", (c) => c.notNull().defaultTo("v1"))
    .addColumn("settings", "text", (c) => c.notNull().defaultTo("{}"))
    .addUniqueConstraint("projects_org_slug", ["org_id", "slug"])
    .execute();

  await withId(db.schema.createTable("project_keys"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("public_key", "text", (c) => c.notNull().unique())
    .addColumn("label", "text", (c) => c.notNull().defaultTo("Default"))
    .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("project_keys_project").on("project_keys").column("project_id").execute();

  await withId(db.schema.createTable("api_tokens"), dialect)
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("org_id", "bigint")
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("token_prefix", "text", (c) => c.notNull())
    .addColumn("scopes", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_used_at", "bigint")
    .addColumn("expires_at", "bigint")
    .execute();

  await withId(db.schema.createTable("queue"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("key_id", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("client_ip", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("body", blob, (c) => c.notNull())
    .addColumn("available_at", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("queue_available").on("queue").columns(["available_at", "id"]).execute();

  await withId(db.schema.createTable("issues"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("short_id", "integer", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("culprit", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("unresolved"))
    .addColumn("substatus", "text", (c) => c.notNull().defaultTo("new"))
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addColumn("event_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("user_count", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("metadata", "text", (c) => c.notNull().defaultTo("{}"))
    .addColumn("first_event_id", "text")
    .addColumn("last_event_id", "text")
    .addColumn("first_release", "text")
    .addColumn("last_release", "text")
    .addUniqueConstraint("issues_project_short", ["project_id", "short_id"])
    .execute();
  await db.schema.createIndex("issues_project_last_seen").on("issues").columns(["project_id", "last_seen"]).execute();

  await db.schema
    .createTable("issue_hashes")
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("grouping_version", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_hashes_pk", ["project_id", "hash"])
    .execute();
  await db.schema.createIndex("issue_hashes_issue").on("issue_hashes").column("issue_id").execute();

  await db.schema
    .createTable("issue_users")
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("user_key", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("issue_users_pk", ["issue_id", "user_key"])
    .execute();

  await withId(db.schema.createTable("events"), dialect)
    .addColumn("project_id", "bigint", (c) => c.notNull())
    .addColumn("issue_id", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("platform", "text", (c) => c.notNull())
    .addColumn("release", "text")
    .addColumn("environment", "text")
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("culprit", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("user_key", "text")
    .addColumn("trace_id", "text")
    .addColumn("digest", "text")
    .addColumn("size", "integer", (c) => c.notNull())
    .addColumn("payload", blob, (c) => c.notNull())
    .addUniqueConstraint("events_project_event", ["project_id", "event_id"])
    .execute();
  await db.schema.createIndex("events_issue_received").on("events").columns(["issue_id", "received_at"]).execute();
  await db.schema.createIndex("events_digest").on("events").columns(["project_id", "digest"]).execute();

  // Keeps the compiler honest about the unused `sql` import across dialect branches.
  void sql;
}
