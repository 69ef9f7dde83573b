import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

export interface OrgRow {
  id: number;
  slug: string;
  name: string;
  createdAt: number;
}

export interface MembershipRow extends OrgRow {
  role: MembersTable["role"];
}

export async function insertOrg(tx: Tx, o: { slug: string; name: string; now: number }): Promise<OrgRow> {
  const row = await tx
    .insertInto("organizations")
    .values({ slug: o.slug, name: o.name, created_at: o.now })
    .returning(["id", "slug", "name", "created_at"])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), slug: row.slug, name: row.name, createdAt: Number(row.created_at) };
}

export async function findOrgBySlug(db: Db | Tx, slug: string): Promise<OrgRow | undefined> {
  const k = "kysely" in db ? db.kysely : db;
  const row = await k.selectFrom("organizations").select(["id", "slug", "name", "created_at"]).where("slug", "=", slug).executeTakeFirst();
  return row ? { id: Number(row.id), slug: row.slug, name: row.name, createdAt: Number(row.created_at) } : undefined;
}

export async function upsertMember(tx: Tx, m: { orgId: number; userId: string; role: MembersTable["role"]; now: number }): Promise<void> {
  await tx
    .insertInto("members")
    .values({ org_id: m.orgId, user_id: m.userId, role: m.role, created_at: m.now })
    .onConflict((oc) => oc.columns(["org_id", "user_id"]).doUpdateSet({ role: m.role }))
    .execute();
}

export async function listMemberships(db: Db, userId: string): Promise<MembershipRow[]> {
  const rows = await db.kysely
    .selectFrom("members")
    .innerJoin("organizations", "organizations.id", "members.org_id")
    .select(["organizations.id", "organizations.slug", "organizations.name", "organizations.created_at", "members.role"])
    .where("members.user_id", "=", userId)
    .orderBy("organizations.slug")
    .execute();
  return rows.map((r) => ({ id: Number(r.id), slug: r.slug, name: r.name, createdAt: Number(r.created_at), role: r.role }));
}

export async function findMembership(db: Db, userId: string, orgSlug: string): Promise<MembershipRow | undefined> {
  const row = await db.kysely
    .selectFrom("members")
    .innerJoin("organizations", "organizations.id", "members.org_id")
    .select(["organizations.id", "organizations.slug", "organizations.name", "organizations.created_at", "members.role"])
    .where("members.user_id", "=", userId)
    .where("organizations.slug", "=", orgSlug)
    .executeTakeFirst();
  return row ? { id: Number(row.id), slug: row.slug, name: row.name, createdAt: Number(row.created_at), role: row.role } : undefined;
}

export async function countOrgs(db: Db): Promise<number> {
  const row = await db.kysely
    .selectFrom("organizations")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
