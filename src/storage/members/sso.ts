/** OpenID Connect settings and linked identities per organization (0020-sso). */
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

export interface OrgSsoRow {
  orgId: number;
  issuer: string;
  clientId: string;
  clientSecretSealed: string;
  defaultRole: MembersTable["role"];
  required: boolean;
  updatedAt: number;
}

type Conn = Db | Tx;
const k = (c: Conn) => ("kysely" in c ? c.kysely : c);

export async function findOrgSso(c: Conn, orgId: number): Promise<OrgSsoRow | undefined> {
  const r = await k(c).selectFrom("org_sso").selectAll().where("org_id", "=", orgId).executeTakeFirst();
  if (!r) return undefined;
  return {
    orgId: Number(r.org_id),
    issuer: r.issuer,
    clientId: r.client_id,
    clientSecretSealed: r.client_secret_sealed,
    defaultRole: r.default_role,
    required: Number(r.required) === 1,
    updatedAt: Number(r.updated_at),
  };
}

export async function upsertOrgSso(tx: Tx, row: OrgSsoRow): Promise<void> {
  const values = {
    org_id: row.orgId,
    issuer: row.issuer,
    client_id: row.clientId,
    client_secret_sealed: row.clientSecretSealed,
    default_role: row.defaultRole,
    required: row.required ? 1 : 0,
    updated_at: row.updatedAt,
  };
  const { org_id: _, ...update } = values;
  await tx
    .insertInto("org_sso")
    .values(values)
    .onConflict((oc) => oc.column("org_id").doUpdateSet(update))
    .execute();
}

export async function deleteOrgSso(tx: Tx, orgId: number): Promise<void> {
  await tx.deleteFrom("org_sso").where("org_id", "=", orgId).execute();
}

export async function findSsoIdentity(c: Conn, orgId: number, issuer: string, subject: string): Promise<{ userId: string } | undefined> {
  const r = await k(c)
    .selectFrom("sso_identities")
    .select("user_id")
    .where("org_id", "=", orgId)
    .where("issuer", "=", issuer)
    .where("subject", "=", subject)
    .executeTakeFirst();
  return r ? { userId: r.user_id } : undefined;
}

export async function linkSsoIdentity(
  tx: Tx,
  i: { orgId: number; issuer: string; subject: string; userId: string; now: number },
): Promise<void> {
  await tx
    .insertInto("sso_identities")
    .values({ org_id: i.orgId, issuer: i.issuer, subject: i.subject, user_id: i.userId, created_at: i.now, last_login_at: i.now })
    .onConflict((oc) => oc.columns(["org_id", "issuer", "subject"]).doUpdateSet({ user_id: i.userId, last_login_at: i.now }))
    .execute();
}

/** Organizations of the user that require SSO, with the user's role in each. */
export async function ssoRequiredMemberships(
  c: Conn,
  userId: string,
): Promise<{ slug: string; name: string; role: MembersTable["role"] }[]> {
  const rows = await k(c)
    .selectFrom("members")
    .innerJoin("org_sso", "org_sso.org_id", "members.org_id")
    .innerJoin("organizations", "organizations.id", "members.org_id")
    .select(["organizations.slug", "organizations.name", "members.role"])
    .where("members.user_id", "=", userId)
    .where("org_sso.required", "=", 1)
    .execute();
  return rows.map((r) => ({ slug: r.slug, name: r.name, role: r.role }));
}

/** Organizations of the user with SSO set up, and whether the user's account is linked there. */
export async function ssoLinksOfUser(c: Conn, userId: string): Promise<{ slug: string; name: string; linked: boolean }[]> {
  const rows = await k(c)
    .selectFrom("members")
    .innerJoin("org_sso", "org_sso.org_id", "members.org_id")
    .innerJoin("organizations", "organizations.id", "members.org_id")
    .leftJoin("sso_identities", (j) =>
      j
        .onRef("sso_identities.org_id", "=", "members.org_id")
        .onRef("sso_identities.issuer", "=", "org_sso.issuer")
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
