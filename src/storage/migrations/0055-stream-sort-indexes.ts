import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * The stream's other sorts walked in order under its default status filter, as 0007's
 * `issues_status_last_seen` does for last seen: without them `is:unresolved` sorted by events,
 * users or first seen read and sorted every unresolved issue of the projects (212 ms at 100,000
 * issues, issue 43), and a tag search could not stop after a page of matches (search.ts probes
 * each walked issue's tag rows instead of collecting every issue that has a common value).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.createIndex("issues_status_events").on("issues").columns(["status", "event_count", "id"]).execute();
  await db.schema.createIndex("issues_status_users").on("issues").columns(["status", "user_count", "id"]).execute();
  await db.schema.createIndex("issues_status_first_seen").on("issues").columns(["status", "first_seen", "id"]).execute();
}
