import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * The stream sorted by events walked in order under its default status filter, as 0007's
 * `issues_status_last_seen` does for last seen: without it `is:unresolved` sorted by events read
 * and sorted every unresolved issue of the projects (212 ms at 100,000 issues, issue 43), and a
 * tag search so sorted could not stop after a page of matches (search.ts probes each walked
 * issue's tag rows). Not for first seen or users: (status, first_seen) led SQLite to answer Sentry's
 * `statsPeriod` lists (first_seen <= end, true of nearly every issue) from that range and sort
 * them all (p50 31 → 143 ms at 100,000 issues).
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema.createIndex("issues_status_events").on("issues").columns(["status", "event_count", "id"]).execute();
}
