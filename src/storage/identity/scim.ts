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
export async function putScimToken(
  tx: Tx,
  t: { orgId: number; tokenHash: string; tokenPrefix: string; createdBy: string; now: number },
): Promise<void> {
  await tx.deleteFrom("scim_tokens").where("org_id", "=", t.orgId).execute();
  await tx
    .insertInto("scim_tokens")
    .values({
      org_id: t.orgId,
      token_hash: t.tokenHash,
      token_prefix: t.tokenPrefix,
      created_by: t.createdBy,
      created_at: t.now,
      last_used_at: null,
    })
    .execute();
}

export async function deleteScimToken(tx: Tx, orgId: number): Promise<void> {
  await tx.deleteFrom("scim_tokens").where("org_id", "=", orgId).execute();
}

export async function touchScimToken(db: Db, orgId: number, now: number): Promise<void> {
  await db.kysely.updateTable("scim_tokens").set({ last_used_at: now }).where("org_id", "=", orgId).execute();
}

export interface ScimUserRow {
  userId: string;
  email: string;
  name: string;
  /** null: deactivated (no membership left) */
  role: MembersTable["role"] | null;
  active: boolean;
  createdAt: number;
  idpManaged: boolean;
  externalId: string | null;
  userName: string | null;
  updatedAt: number | null;
}

type UserTable = { user: { id: string; email: string; name: string } };
type Tables = UserTable & {
  members: MembersTable & { idp_managed: number };
  scim_users: {
    org_id: number;
    user_id: string;
    external_id: string | null;
    user_name: string;
    active: number;
    created_at: number;
    updated_at: number;
  };
};

export interface ScimUserQuery {
  offset: number;
  limit: number;
  userName?: string;
  externalId?: string;
  userId?: string;
}

/**
 * People as SCIM users: the members of the organization (by email), then the people SCIM
 * deactivated (no membership left, still known to the provider). `userName` compares
 * case-insensitively (RFC 7643 §4.1.1) with the provisioned name or the email.
 */
export async function listScimUsers(db: Conn, orgId: number, page: ScimUserQuery): Promise<{ total: number; rows: ScimUserRow[] }> {
  const kk = k(db) as unknown as Kysely<Tables>;
  let members = kk
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .leftJoin("scim_users", (j) => j.onRef("scim_users.org_id", "=", "members.org_id").onRef("scim_users.user_id", "=", "members.user_id"))
    .where("members.org_id", "=", orgId);
  let inactive = kk
    .selectFrom("scim_users")
    .innerJoin("user", "user.id", "scim_users.user_id")
    .where("scim_users.org_id", "=", orgId)
    .where("scim_users.active", "=", 0);
  if (page.userName !== undefined) {
    const name = page.userName.toLowerCase();
    members = members.where((eb) => eb.or([eb(eb.fn("lower", ["scim_users.user_name"]), "=", name), eb("user.email", "=", name)]));
    inactive = inactive.where((eb) => eb.or([eb(eb.fn("lower", ["scim_users.user_name"]), "=", name), eb("user.email", "=", name)]));
  }
  if (page.externalId !== undefined) {
    members = members.where("scim_users.external_id", "=", page.externalId);
    inactive = inactive.where("scim_users.external_id", "=", page.externalId);
  }
  if (page.userId !== undefined) {
    members = members.where("members.user_id", "=", page.userId);
    inactive = inactive.where("scim_users.user_id", "=", page.userId);
  }
  const activeTotal = Number((await members.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst())?.n ?? 0);
  const inactiveTotal = Number((await inactive.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst())?.n ?? 0);
  const rows: ScimUserRow[] = [];
  if (page.offset < activeTotal) {
    const found = await members
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
      .orderBy("members.user_id")
      .offset(page.offset)
      .limit(page.limit)
      .execute();
    for (const r of found)
      rows.push({
        userId: r.user_id,
        email: r.email,
        name: r.name,
        role: r.role,
        active: true,
        createdAt: Number(r.created_at),
        idpManaged: Number(r.idp_managed) === 1,
        externalId: r.external_id ?? null,
        userName: r.user_name ?? null,
        updatedAt: r.updated_at === null || r.updated_at === undefined ? null : Number(r.updated_at),
      });
  }
  const left = page.limit - rows.length;
  if (left > 0 && inactiveTotal > 0) {
    const found = await inactive
      .select([
        "scim_users.user_id",
        "scim_users.created_at",
        "scim_users.updated_at",
        "scim_users.external_id",
        "scim_users.user_name",
        "user.email",
        "user.name",
      ])
      .orderBy("user.email")
      .orderBy("scim_users.user_id")
      .offset(Math.max(0, page.offset - activeTotal))
      .limit(left)
      .execute();
    for (const r of found)
      rows.push({
        userId: r.user_id,
        email: r.email,
        name: r.name,
        role: null,
        active: false,
        createdAt: Number(r.created_at),
        idpManaged: true,
        externalId: r.external_id,
        userName: r.user_name,
        updatedAt: Number(r.updated_at),
      });
  }
  return { total: activeTotal + inactiveTotal, rows };
}

export async function upsertScimUser(
  tx: Tx,
  u: { orgId: number; userId: string; externalId: string | null; userName: string; active: boolean; createdAccount?: boolean; now: number },
): Promise<void> {
  const active = u.active ? 1 : 0;
  const values = {
    org_id: u.orgId,
    user_id: u.userId,
    external_id: u.externalId,
    user_name: u.userName,
    active,
    created_account: u.createdAccount ? 1 : 0,
    created_at: u.now,
    updated_at: u.now,
  };
  await tx
    .insertInto("scim_users")
    .values(values)
    .onConflict((oc) =>
      oc.columns(["org_id", "user_id"]).doUpdateSet({ external_id: u.externalId, user_name: u.userName, active, updated_at: u.now }),
    )
    .execute();
}

export async function deleteScimUser(tx: Tx, orgId: number, userId: string): Promise<void> {
  await tx.deleteFrom("scim_users").where("org_id", "=", orgId).where("user_id", "=", userId).execute();
}

/**
 * Whether this organization's provisioning created the account: its provider may then sign it in
 * without the account being signed in to link it. An account that existed before (made with a
 * password, or by another organization) never qualifies, or an owner could provision someone's
 * account and then sign in as them through a provider of their own.
 */
export async function accountCreatedHere(c: Conn, orgId: number, userId: string): Promise<boolean> {
  const r = await k(c)
    .selectFrom("scim_users")
    .select("created_account")
    .where("org_id", "=", orgId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(r?.created_account ?? 0) === 1;
}
