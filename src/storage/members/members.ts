import type { Kysely } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { InvitationsTable, MembersTable } from "../schema";

export interface MemberRow {
  userId: string;
  email: string;
  name: string;
  role: MembersTable["role"];
  createdAt: number;
}

// Better Auth's `user` table is not in our typed schema; narrow raw reads keep it that way.
type UserTable = { user: { id: string; email: string; name: string } };

export async function listMembers(db: Db, orgId: number): Promise<MemberRow[]> {
  const k = db.kysely as unknown as Kysely<UserTable & { members: MembersTable }>;
  const rows = await k
    .selectFrom("members")
    .innerJoin("user", "user.id", "members.user_id")
    .select(["members.user_id", "members.role", "members.created_at", "user.email", "user.name"])
    .where("members.org_id", "=", orgId)
    .orderBy("user.email")
    .execute();
  return rows.map((r) => ({ userId: r.user_id, email: r.email, name: r.name, role: r.role, createdAt: Number(r.created_at) }));
}

export async function findMemberRole(db: Db | Tx, orgId: number, userId: string): Promise<MembersTable["role"] | undefined> {
  const k = "kysely" in db ? db.kysely : db;
  const row = await k.selectFrom("members").select("role").where("org_id", "=", orgId).where("user_id", "=", userId).executeTakeFirst();
  return row?.role;
}

export async function countOwners(tx: Db | Tx, orgId: number): Promise<number> {
  const k = "kysely" in tx ? tx.kysely : tx;
  const row = await k
    .selectFrom("members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("org_id", "=", orgId)
    .where("role", "=", "owner")
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function setMemberRole(tx: Tx, orgId: number, userId: string, role: MembersTable["role"]): Promise<void> {
  await tx.updateTable("members").set({ role }).where("org_id", "=", orgId).where("user_id", "=", userId).execute();
}

/** Removes the membership with the org's tokens of that user and their team memberships. */
export async function deleteMember(tx: Tx, orgId: number, userId: string): Promise<void> {
  await tx.deleteFrom("members").where("org_id", "=", orgId).where("user_id", "=", userId).execute();
  await tx.deleteFrom("api_tokens").where("org_id", "=", orgId).where("user_id", "=", userId).execute();
  await tx
    .deleteFrom("team_members")
    .where("user_id", "=", userId)
    .where("team_id", "in", (eb) => eb.selectFrom("teams").select("id").where("org_id", "=", orgId))
    .execute();
}

/**
 * Who invited each member who joined through an invitation (Sentry's `inviterName`): member user
 * id → the inviter's name (their email when they set none). The latest accepted invitation wins.
 */
export async function invitersOfMembers(db: Db, orgId: number): Promise<Map<string, string>> {
  const k = db.kysely as unknown as Kysely<UserTable & { invitations: InvitationsTable }>;
  const rows = await k
    .selectFrom("invitations")
    .innerJoin("user", "user.id", "invitations.invited_by")
    .select(["invitations.accepted_user_id", "user.name", "user.email"])
    .where("invitations.org_id", "=", orgId)
    .where("invitations.accepted_user_id", "is not", null)
    .orderBy("invitations.accepted_at")
    .execute();
  return new Map(rows.map((r) => [r.accepted_user_id as string, r.name || r.email]));
}

/** The members who signed in through the organization's single sign-on (Sentry's `sso:linked`). */
export async function ssoLinkedMembers(db: Db, orgId: number): Promise<Set<string>> {
  const rows = await db.kysely.selectFrom("sso_identities").select("user_id").where("org_id", "=", orgId).groupBy("user_id").execute();
  return new Set(rows.map((r) => r.user_id));
}
