/** SAML 2.0 settings, sent AuthnRequests and accepted assertion ids per organization (0051-saml). */
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

export interface OrgSamlRow {
  orgId: number;
  idpEntityId: string;
  idpSsoUrl: string;
  idpCerts: string[];
  metadataUrl: string | null;
  spCert: string;
  spKeySealed: string;
  attrEmail: string;
  attrName: string;
  attrGroups: string;
  defaultRole: MembersTable["role"];
  required: boolean;
  updatedAt: number;
}

export interface SamlRequestRow {
  id: string;
  orgId: number;
  purpose: "signin" | "link" | "test";
  userId: string | null;
  next: string;
  createdAt: number;
  expiresAt: number;
}

type Conn = Db | Tx;
const k = (c: Conn) => ("kysely" in c ? c.kysely : c);

export async function findOrgSaml(c: Conn, orgId: number): Promise<OrgSamlRow | undefined> {
  const r = await k(c).selectFrom("org_saml").selectAll().where("org_id", "=", orgId).executeTakeFirst();
  if (!r) return undefined;
  return {
    orgId: Number(r.org_id),
    idpEntityId: r.idp_entity_id,
    idpSsoUrl: r.idp_sso_url,
    idpCerts: JSON.parse(r.idp_certs) as string[],
    metadataUrl: r.metadata_url,
    spCert: r.sp_cert,
    spKeySealed: r.sp_key_sealed,
    attrEmail: r.attr_email,
    attrName: r.attr_name,
    attrGroups: r.attr_groups,
    defaultRole: r.default_role,
    required: Number(r.required) === 1,
    updatedAt: Number(r.updated_at),
  };
}

export async function upsertOrgSaml(tx: Tx, row: OrgSamlRow): Promise<void> {
  const values = {
    org_id: row.orgId,
    idp_entity_id: row.idpEntityId,
    idp_sso_url: row.idpSsoUrl,
    idp_certs: JSON.stringify(row.idpCerts),
    metadata_url: row.metadataUrl,
    sp_cert: row.spCert,
    sp_key_sealed: row.spKeySealed,
    attr_email: row.attrEmail,
    attr_name: row.attrName,
    attr_groups: row.attrGroups,
    default_role: row.defaultRole,
    required: row.required ? 1 : 0,
    updated_at: row.updatedAt,
  };
  const { org_id: _, ...update } = values;
  await tx
    .insertInto("org_saml")
    .values(values)
    .onConflict((oc) => oc.column("org_id").doUpdateSet(update))
    .execute();
}

export async function deleteOrgSaml(tx: Tx, orgId: number): Promise<void> {
  await tx.deleteFrom("org_saml").where("org_id", "=", orgId).execute();
}

/** Organizations of the user that require SAML sign-in, with the user's role in each. */
export async function samlRequiredMemberships(
  c: Conn,
  userId: string,
): Promise<{ slug: string; name: string; role: MembersTable["role"] }[]> {
  const rows = await k(c)
    .selectFrom("members")
    .innerJoin("org_saml", "org_saml.org_id", "members.org_id")
    .innerJoin("organizations", "organizations.id", "members.org_id")
    .select(["organizations.slug", "organizations.name", "members.role"])
    .where("members.user_id", "=", userId)
    .where("org_saml.required", "=", 1)
    .execute();
  return rows.map((r) => ({ slug: r.slug, name: r.name, role: r.role }));
}

export async function insertSamlRequest(tx: Tx, r: SamlRequestRow): Promise<void> {
  await tx
    .insertInto("saml_requests")
    .values({
      id: r.id,
      org_id: r.orgId,
      purpose: r.purpose,
      user_id: r.userId,
      next: r.next,
      created_at: r.createdAt,
      expires_at: r.expiresAt,
      used_at: null,
      result: null,
    })
    .execute();
  // Requests nobody answered go once they can no longer be answered.
  await tx
    .deleteFrom("saml_requests")
    .where("expires_at", "<", r.createdAt - 24 * 3600 * 1000)
    .execute();
}

/** The request, unused and unexpired, of this organization (what an InResponseTo may name), else undefined. */
export async function findOpenSamlRequest(c: Conn, orgId: number, id: string, now: number): Promise<SamlRequestRow | undefined> {
  const r = await k(c)
    .selectFrom("saml_requests")
    .selectAll()
    .where("id", "=", id)
    .where("org_id", "=", orgId)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return r ? toRequest(r) : undefined;
}

/** Marks the request answered; false when another answer used it first (each request is answered once). */
export async function markSamlRequestAnswered(tx: Tx, id: string, now: number): Promise<boolean> {
  const res = await tx
    .updateTable("saml_requests")
    .set({ used_at: now })
    .where("id", "=", id)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function saveSamlTestResult(tx: Tx, id: string, result: unknown): Promise<void> {
  await tx
    .updateTable("saml_requests")
    .set({ result: JSON.stringify(result) })
    .where("id", "=", id)
    .execute();
}

/** A test's result, for the owner who started it (an hour at most). */
export async function findSamlTestResult(c: Conn, orgId: number, id: string, userId: string, now: number): Promise<unknown | undefined> {
  const r = await k(c)
    .selectFrom("saml_requests")
    .select(["result", "created_at"])
    .where("id", "=", id)
    .where("org_id", "=", orgId)
    .where("user_id", "=", userId)
    .where("purpose", "=", "test")
    .executeTakeFirst();
  if (!r?.result || Number(r.created_at) < now - 3600 * 1000) return undefined;
  return JSON.parse(r.result) as unknown;
}

/**
 * Records an assertion id as used; false when it was used before (a replay). Kept until
 * `expiresAt` (when the assertion's own validity ends), then purged.
 */
export async function recordAssertionOnce(tx: Tx, orgId: number, assertionId: string, expiresAt: number, now: number): Promise<boolean> {
  await tx.deleteFrom("saml_assertions").where("expires_at", "<", now).execute();
  // ON CONFLICT DO NOTHING: a second web process racing with the same assertion inserts nothing.
  const res = await tx
    .insertInto("saml_assertions")
    .values({ org_id: orgId, assertion_id: assertionId, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(["org_id", "assertion_id"]).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) === 1;
}

function toRequest(r: {
  id: string;
  org_id: number;
  purpose: string;
  user_id: string | null;
  next: string;
  created_at: number;
  expires_at: number;
}): SamlRequestRow {
  return {
    id: r.id,
    orgId: Number(r.org_id),
    purpose: r.purpose as SamlRequestRow["purpose"],
    userId: r.user_id,
    next: r.next,
    createdAt: Number(r.created_at),
    expiresAt: Number(r.expires_at),
  };
}

/** Organizations of the user with SAML set up, and whether the user's account is linked to its provider. */
export async function samlLinksOfUser(c: Conn, userId: string): Promise<{ slug: string; name: string; linked: boolean }[]> {
  const rows = await k(c)
    .selectFrom("members")
    .innerJoin("org_saml", "org_saml.org_id", "members.org_id")
    .innerJoin("organizations", "organizations.id", "members.org_id")
    .leftJoin("sso_identities", (j) =>
      j
        .onRef("sso_identities.org_id", "=", "members.org_id")
        .onRef("sso_identities.issuer", "=", "org_saml.idp_entity_id")
        .onRef("sso_identities.user_id", "=", "members.user_id"),
    )
    .select(["organizations.slug", "organizations.name", "sso_identities.id as identity"])
    .where("members.user_id", "=", userId)
    .orderBy("organizations.slug")
    .execute();
  const out = new Map<string, { slug: string; name: string; linked: boolean }>();
  for (const r of rows) out.set(r.slug, { slug: r.slug, name: r.name, linked: (out.get(r.slug)?.linked ?? false) || r.identity !== null });
  return [...out.values()];
}
