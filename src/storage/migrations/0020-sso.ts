import type { Kysely } from "kysely";
import type { DialectName } from "../db";
import { withId } from "../dialect";

/**
 * Single sign-on (OpenID Connect) per organization: the provider's settings (the client secret
 * sealed with the installation secret, never in clear) and the identities it has vouched for,
 * keyed by the provider's stable subject so an email change at the provider keeps the account.
 */
export async function up(db: Kysely<unknown>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("org_sso")
    .addColumn("org_id", "bigint", (c) => c.primaryKey())
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret_sealed", "text", (c) => c.notNull())
    .addColumn("default_role", "text", (c) => c.notNull())
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await withId(db.schema.createTable("sso_identities"), dialect)
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_login_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("sso_identities_org_issuer_subject", ["org_id", "issuer", "subject"])
    .execute();
  await db.schema.createIndex("sso_identities_user").on("sso_identities").column("user_id").execute();
}
