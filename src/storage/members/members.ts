import type { Kysely } from "kysely";
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

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
