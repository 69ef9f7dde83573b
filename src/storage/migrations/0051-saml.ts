import type { Kysely } from "kysely";
import type { DialectName } from "../db";

/**
 * SAML 2.0 single sign-on per organization (issue 42), beside OpenID Connect (0020): an owner
 * chooses one. `org_saml` holds the identity provider (entity id, sign-in URL, one or more signing
 * certificates — two during a rollover), the attribute names, and this service provider's own key
 * pair (the private key sealed with the installation secret). `saml_requests` are the
 * AuthnRequests sent (their ids are what a response's InResponseTo must name, once; who started a
 * sign-in, so linking an account needs that account signed in; a test's result for the owner), and
 * `saml_assertions` the assertion ids accepted, each once (replay protection), kept until the
 * assertion would have expired anyway.
 */
export async function up(db: Kysely<unknown>, _dialect: DialectName): Promise<void> {
  await db.schema
    .createTable("org_saml")
    .addColumn("org_id", "bigint", (c) => c.primaryKey())
    .addColumn("idp_entity_id", "text", (c) => c.notNull())
    .addColumn("idp_sso_url", "text", (c) => c.notNull())
    /** JSON array of PEM certificates (the IdP's signing certificates) */
    .addColumn("idp_certs", "text", (c) => c.notNull())
    .addColumn("metadata_url", "text")
    .addColumn("sp_cert", "text", (c) => c.notNull())
    .addColumn("sp_key_sealed", "text", (c) => c.notNull())
    .addColumn("attr_email", "text", (c) => c.notNull())
    .addColumn("attr_name", "text", (c) => c.notNull())
    .addColumn("attr_groups", "text", (c) => c.notNull())
    .addColumn("default_role", "text", (c) => c.notNull())
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("saml_requests")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("purpose", "text", (c) => c.notNull())
    .addColumn("user_id", "text")
    .addColumn("next", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .addColumn("result", "text")
    .execute();
  await db.schema.createIndex("saml_requests_expires").on("saml_requests").column("expires_at").execute();
  await db.schema
    .createTable("saml_assertions")
    .addColumn("org_id", "bigint", (c) => c.notNull())
    .addColumn("assertion_id", "text", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("saml_assertions_pk", ["org_id", "assertion_id"])
    .execute();
  await db.schema.createIndex("saml_assertions_expires").on("saml_assertions").column("expires_at").execute();
}
