/**
 * Identity-provider groups and the memberships they manage (0052-scim): a group (pushed by SCIM or
 * named by an owner) maps to a team and/or a role; who is in it comes from SCIM or from the groups
 * attribute of a sign-in. `applyManagedTeams` makes a member's managed team memberships exactly
 * those their groups map to, leaving the memberships made by hand alone.
 */
import type { Db } from "../db";
import type { Tx } from "../dialect";
import type { MembersTable } from "../schema";

export interface IdpGroupRow {
  id: number;
  orgId: number;
  name: string;
  scimId: string | null;
  externalId: string | null;
  teamId: number | null;
  role: MembersTable["role"] | null;
  createdAt: number;
  updatedAt: number;
}

type Conn = Db | Tx;
const k = (c: Conn) => ("kysely" in c ? c.kysely : c);

function toGroup(r: {
  id: number;
  org_id: number;
  name: string;
  scim_id: string | null;
  external_id: string | null;
  team_id: number | null;
  role: MembersTable["role"] | null;
  created_at: number;
  updated_at: number;
}): IdpGroupRow {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    name: r.name,
    scimId: r.scim_id,
    externalId: r.external_id,
    teamId: r.team_id === null ? null : Number(r.team_id),
    role: r.role,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

export async function listIdpGroups(c: Conn, orgId: number): Promise<IdpGroupRow[]> {
  const rows = await k(c).selectFrom("idp_groups").selectAll().where("org_id", "=", orgId).orderBy("id").execute();
  return rows.map(toGroup);
}

/** SCIM's groups of the organization, a page of them (by id), optionally those of one display name, externalId or SCIM id. */
export async function listScimGroups(
  c: Conn,
  orgId: number,
  page: { offset: number; limit: number; name?: string; externalId?: string; scimId?: string },
): Promise<{ total: number; rows: IdpGroupRow[] }> {
  let q = k(c).selectFrom("idp_groups").where("org_id", "=", orgId).where("scim_id", "is not", null);
  if (page.name !== undefined) q = q.where("name", "=", page.name);
  if (page.externalId !== undefined) q = q.where("external_id", "=", page.externalId);
  if (page.scimId !== undefined) q = q.where("scim_id", "=", page.scimId);
  const total = await q.select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirst();
  const rows = await q.selectAll().orderBy("id").offset(page.offset).limit(page.limit).execute();
  return { total: Number(total?.n ?? 0), rows: rows.map(toGroup) };
}

export async function findIdpGroupByName(c: Conn, orgId: number, name: string): Promise<IdpGroupRow | undefined> {
  const r = await k(c).selectFrom("idp_groups").selectAll().where("org_id", "=", orgId).where("name", "=", name).executeTakeFirst();
  return r ? toGroup(r) : undefined;
}

export async function findIdpGroupByScimId(c: Conn, orgId: number, scimId: string): Promise<IdpGroupRow | undefined> {
  const r = await k(c).selectFrom("idp_groups").selectAll().where("org_id", "=", orgId).where("scim_id", "=", scimId).executeTakeFirst();
  return r ? toGroup(r) : undefined;
}

export async function findIdpGroupById(c: Conn, orgId: number, id: number): Promise<IdpGroupRow | undefined> {
  const r = await k(c).selectFrom("idp_groups").selectAll().where("org_id", "=", orgId).where("id", "=", id).executeTakeFirst();
  return r ? toGroup(r) : undefined;
}

export async function insertIdpGroup(tx: Tx, g: Omit<IdpGroupRow, "id">): Promise<number> {
  const row = await tx
    .insertInto("idp_groups")
    .values({
      org_id: g.orgId,
      name: g.name,
      scim_id: g.scimId,
      external_id: g.externalId,
      team_id: g.teamId,
      role: g.role,
      created_at: g.createdAt,
      updated_at: g.updatedAt,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

export async function updateIdpGroup(
  tx: Tx,
  id: number,
  set: Partial<Pick<IdpGroupRow, "name" | "scimId" | "externalId" | "teamId" | "role">> & { updatedAt: number },
): Promise<void> {
  const values: Record<string, unknown> = { updated_at: set.updatedAt };
  if (set.name !== undefined) values.name = set.name;
  if (set.scimId !== undefined) values.scim_id = set.scimId;
  if (set.externalId !== undefined) values.external_id = set.externalId;
  if (set.teamId !== undefined) values.team_id = set.teamId;
  if (set.role !== undefined) values.role = set.role;
  await tx.updateTable("idp_groups").set(values).where("id", "=", id).execute();
}

export async function deleteIdpGroup(tx: Tx, id: number): Promise<void> {
  await tx.deleteFrom("idp_group_members").where("group_id", "=", id).execute();
  await tx.deleteFrom("idp_groups").where("id", "=", id).execute();
}

/** Who is in the group by `source`. */
export async function groupMemberIds(c: Conn, groupId: number, source: "scim" | "signin"): Promise<string[]> {
  const rows = await k(c)
    .selectFrom("idp_group_members")
    .select("user_id")
    .where("group_id", "=", groupId)
    .where("source", "=", source)
    .orderBy("user_id")
    .execute();
  return rows.map((r) => r.user_id);
}

/** Every person in the group, whatever the source (whose memberships a change of the group touches). */
export async function allGroupMemberIds(c: Conn, groupId: number): Promise<string[]> {
  const rows = await k(c).selectFrom("idp_group_members").select("user_id").where("group_id", "=", groupId).distinct().execute();
  return rows.map((r) => r.user_id);
}

export async function setGroupMember(tx: Tx, groupId: number, userId: string, source: "scim" | "signin", on: boolean): Promise<void> {
  if (!on) {
    await tx
      .deleteFrom("idp_group_members")
      .where("group_id", "=", groupId)
      .where("user_id", "=", userId)
      .where("source", "=", source)
      .execute();
    return;
  }
  await tx
    .insertInto("idp_group_members")
    .values({ group_id: groupId, user_id: userId, source })
    .onConflict((oc) => oc.columns(["group_id", "user_id", "source"]).doNothing())
    .execute();
}

/** Replaces the groups a sign-in asserted for the user: those of the organization's known groups named in `names`. */
export async function setSigninGroups(tx: Tx, orgId: number, userId: string, names: readonly string[]): Promise<string[]> {
  const orgGroups = tx.selectFrom("idp_groups").select("id").where("org_id", "=", orgId);
  await tx
    .deleteFrom("idp_group_members")
    .where("user_id", "=", userId)
    .where("source", "=", "signin")
    .where("group_id", "in", orgGroups)
    .execute();
  if (names.length === 0) return [];
  const known = await tx
    .selectFrom("idp_groups")
    .select(["id", "name"])
    .where("org_id", "=", orgId)
    .where("name", "in", [...names])
    .execute();
  for (const g of known) await setGroupMember(tx, Number(g.id), userId, "signin", true);
  return known.map((g) => g.name);
}

/** Removes the user from every group of the organization (deprovisioning). */
export async function removeFromAllGroups(tx: Tx, orgId: number, userId: string): Promise<void> {
  await tx
    .deleteFrom("idp_group_members")
    .where("user_id", "=", userId)
    .where("group_id", "in", tx.selectFrom("idp_groups").select("id").where("org_id", "=", orgId))
    .execute();
}

/** The teams and roles the user's groups map to in the organization. */
export async function mappedForUser(c: Conn, orgId: number, userId: string): Promise<{ teamIds: number[]; roles: MembersTable["role"][] }> {
  const rows = await k(c)
    .selectFrom("idp_group_members as m")
    .innerJoin("idp_groups as g", "g.id", "m.group_id")
    .select(["g.team_id", "g.role"])
    .where("g.org_id", "=", orgId)
    .where("m.user_id", "=", userId)
    .execute();
  const teamIds = [...new Set(rows.flatMap((r) => (r.team_id === null ? [] : [Number(r.team_id)])))];
  const roles = rows.flatMap((r) => (r.role === null ? [] : [r.role]));
  return { teamIds, roles };
}

/**
 * Makes the user's managed team memberships in the organization exactly `teamIds` (of its teams):
 * missing ones are added as managed (an existing manual membership becomes managed), managed ones
 * no longer mapped are removed. Memberships made by hand on other teams stay.
 */
export async function applyManagedTeams(
  tx: Tx,
  orgId: number,
  userId: string,
  teamIds: readonly number[],
): Promise<{ added: number[]; removed: number[] }> {
  const orgTeams = new Set((await tx.selectFrom("teams").select("id").where("org_id", "=", orgId).execute()).map((t) => Number(t.id)));
  const want = new Set(teamIds.filter((id) => orgTeams.has(id)));
  const rows = await tx
    .selectFrom("team_members")
    .select(["team_id", "managed"])
    .where("user_id", "=", userId)
    .where("team_id", "in", orgTeams.size ? [...orgTeams] : [-1])
    .execute();
  const current = new Map(rows.map((r) => [Number(r.team_id), Number(r.managed) === 1]));
  const added: number[] = [];
  const removed: number[] = [];
  for (const id of want) {
    if (current.get(id) === true) continue;
    if (current.has(id))
      await tx.updateTable("team_members").set({ managed: 1 }).where("team_id", "=", id).where("user_id", "=", userId).execute();
    else await tx.insertInto("team_members").values({ team_id: id, user_id: userId, managed: 1 }).execute();
    added.push(id);
  }
  for (const [id, managed] of current) {
    if (!managed || want.has(id)) continue;
    await tx.deleteFrom("team_members").where("team_id", "=", id).where("user_id", "=", userId).execute();
    removed.push(id);
  }
  return { added, removed };
}

/** Whether the user's membership of the team is managed by the identity provider. */
export async function isManagedTeamMember(c: Conn, teamId: number, userId: string): Promise<boolean> {
  const r = await k(c)
    .selectFrom("team_members")
    .select("managed")
    .where("team_id", "=", teamId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(r?.managed ?? 0) === 1;
}

/** Managed team memberships of the organization: team id → user ids (the teams page marks them). */
export async function managedTeamMembers(c: Conn, orgId: number): Promise<Map<number, Set<string>>> {
  const rows = await k(c)
    .selectFrom("team_members as tm")
    .innerJoin("teams as t", "t.id", "tm.team_id")
    .select(["tm.team_id", "tm.user_id"])
    .where("t.org_id", "=", orgId)
    .where("tm.managed", "=", 1)
    .execute();
  const out = new Map<number, Set<string>>();
  for (const r of rows) {
    const set = out.get(Number(r.team_id)) ?? new Set<string>();
    set.add(r.user_id);
    out.set(Number(r.team_id), set);
  }
  return out;
}

export async function setMemberIdpManaged(tx: Tx, orgId: number, userId: string, managed: boolean): Promise<void> {
  await tx
    .updateTable("members")
    .set({ idp_managed: managed ? 1 : 0 })
    .where("org_id", "=", orgId)
    .where("user_id", "=", userId)
    .execute();
}

/** Members of the organization the identity provider manages (the members page marks them). */
export async function idpManagedMembers(c: Conn, orgId: number): Promise<Set<string>> {
  const rows = await k(c).selectFrom("members").select("user_id").where("org_id", "=", orgId).where("idp_managed", "=", 1).execute();
  return new Set(rows.map((r) => r.user_id));
}

export async function isIdpManagedMember(c: Conn, orgId: number, userId: string): Promise<boolean> {
  const r = await k(c)
    .selectFrom("members")
    .select("idp_managed")
    .where("org_id", "=", orgId)
    .where("user_id", "=", userId)
    .executeTakeFirst();
  return Number(r?.idp_managed ?? 0) === 1;
}
