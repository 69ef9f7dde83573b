import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * The audit log per organization (issue 42, SPEC §2): sign-ins through the identity provider,
 * provisioning and deprovisioning, single sign-on and SCIM changes, role changes and removals.
 * `actor` is who did it in words (an email, "SCIM", "identity provider"), kept even when the
 * account is gone; `details` a small JSON object. Owners read it at /[org]/settings/audit-log.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await withId(db.schema.createTable("audit_log"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .addColumn("actor_user_id", "text")
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("address", "text")
    .addColumn("details", "text")
    .execute();
  await db.schema.createIndex("audit_log_org_at").on("audit_log").columns(["org_id", "id"]).execute();
}
