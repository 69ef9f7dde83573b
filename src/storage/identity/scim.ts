/** The organization's SCIM token (hashed) and what SCIM said about the members it provisions (0052-scim). */
import type { Kysely } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

type Conn = Db | Tx;
const k = (c: Conn) => ("kysely" in c ? c.kysely : c);

export interface ScimTokenRow {
  orgId: number;
  tokenPrefix: string;
  createdBy: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export async function findScimToken(c: Conn, orgId: number): Promise<ScimTokenRow | undefined> {
  const r = await k(c).selectFrom("scim_tokens").selectAll().where("org_id", "=", orgId).executeTakeFirst();
  return r
    ? {
        orgId: Number(r.org_id),
        tokenPrefix: r.token_prefix,
        createdBy: r.created_by,
        createdAt: Number(r.created_at),
        lastUsedAt: r.last_used_at === null ? null : Number(r.last_used_at),
      }
    : undefined;
}

/** The organization whose SCIM token has this hash. */
export async function orgOfScimTokenHash(c: Conn, tokenHash: string): Promise<number | undefined> {
  const r = await k(c).selectFrom("scim_tokens").select("org_id").where("token_hash", "=", tokenHash).executeTakeFirst();
  return r ? Number(r.org_id) : undefined;
}

/** Stores a new token (replacing the previous one, which stops working at once). */
export async function putScimToken(tx: Tx, t: { orgId: number; tokenHash: string; tokenPrefix: string; createdBy: string; now: number }): Promise<void> {
  await tx.deleteFrom("scim_tokens").where("org_id", "=", t.orgId).execute();
  await tx
    .insertInto("scim_tokens")
    .values({ org_id: t.orgId, token_hash: t.tokenHash, token_prefix: t.tokenPrefix, created_by: t.createdBy, created_at: t.now, last_used_at: null })
    .execute();
}

export async function deleteScimToken(tx: Tx, orgId: number): Promise<void> {
  await tx.deleteFrom("scim_tokens").where("org_id", "=", orgId).execute();
}

export async function touchScimToken(db: Db, orgId: number, now: number): Promise<void> {
  await db.kysely.updateTable("scim_tokens").set({ last_used_at: now }).where("org_id", "=", orgId).execute();
}

export interface ScimMemberRow {
  userId: string;
  email: string;
  name: string;
  role: MembersTable["role"];
  createdAt: number;
  idpManaged: boolean;
  externalId: string | null;
  userName: string | null;
  updatedAt: number | null;
}

type UserTable = { user: { id: string; email: string; name: string } };

/** Members as SCIM users: a page by email, optionally only those whose userName (or email) is `userName`. */
export async function listScimMembers(
  db: Conn,
  orgId: number,
  page: { offset: number; limit: number; userName?: string; externalId?: string; userId?: string },
): Promise<{ total: number; rows: ScimMemberRow[] }> {
  const kk = k(db) as unknown as Kysely<UserTable & { members: MembersTable & { idp_managed: number }; scim_users: { org_id: number; user_id: string; external_id: string | null; user_name: string; updated_at: number } }>;
  let q = kk
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .leftJoin("scim_users", (j) => j.onRef("scim_users.org_id", "=", "members.org_id").onRef("scim_users.user_id", "=", "members.user_id"))
    .where("members.org_id", "=", orgId);
  // userName is case-insensitive (RFC 7643 §4.1.1): stored names and emails are compared lowercased.
  if (page.userName !== undefined) {
    const name = page.userName.toLowerCase();
    q = q.where((eb) => eb.or([eb(eb.fn("lower", ["scim_users.user_name"]), "=", name), eb("user.email", "=", name)]));
  }
  if (page.externalId !== undefined) q = q.where("scim_users.external_id", "=", page.externalId);
  if (page.userId !== undefined) q = q.where("members.user_id", "=", page.userId);
  const total = await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
  const rows = await q
    .select([
      "members.user_id",
      "members.role",
      "members.created_at",
      "members.idp_managed",
      "user.email",
      "user.name",
      "scim_users.external_id",
      "scim_users.user_name",
      "scim_users.updated_at",
    ])
    .orderBy("user.email")
    .offset(page.offset)
    .limit(page.limit)
    .execute();
  return {
    total: Number(total?.n ?? 0),
    rows: rows.map((r) => ({
      userId: r.user_id,
      email: r.email,
      name: r.name,
      role: r.role,
      createdAt: Number(r.created_at),
      idpManaged: Number(r.idp_managed) === 1,
      externalId: r.external_id ?? null,
      userName: r.user_name ?? null,
      updatedAt: r.updated_at === null || r.updated_at === undefined ? null : Number(r.updated_at),
    })),
  };
}

export async function upsertScimUser(
  tx: Tx,
  u: { orgId: number; userId: string; externalId: string | null; userName: string; now: number },
): Promise<void> {
  await tx
    .insertInto("scim_users")
    .values({ org_id: u.orgId, user_id: u.userId, external_id: u.externalId, user_name: u.userName, created_at: u.now, updated_at: u.now })
    .onConflict((oc) => oc.columns(["org_id", "user_id"]).doUpdateSet({ external_id: u.externalId, user_name: u.userName, updated_at: u.now }))
    .execute();
}

export async function deleteScimUser(tx: Tx, orgId: number, userId: string): Promise<void> {
  await tx.deleteFrom("scim_users").where("org_id", "=", orgId).where("user_id", "=", userId).execute();
}

/** Whether this organization's provisioning created the account (its provider may then sign it in unlinked). */
export async function provisionedHere(c: Conn, orgId: number, userId: string): Promise<boolean> {
  const r = await k(c).selectFrom("scim_users").select("user_id").where("org_id", "=", orgId).where("user_id", "=", userId).executeTakeFirst();
  return r !== undefined;
}
