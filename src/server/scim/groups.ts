/**
 * SCIM 2.0 Groups (RFC 7644) at /api/0/organizations/{org}/scim/v2/Groups: identity-provider
 * groups become teams. A pushed group maps to the team of its name (made when there is none, or
 * an owner's mapping of that name is adopted); its members are that team's managed members, and
 * every change (members added, removed or replaced, a rename, a deletion) is applied to the
 * people it touches at once (src/server/identity/provisioning.ts). Deleting a group ends its
 * managed memberships and its mapping; the team stays with its projects.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { AppError } from "../../core/errors";
import { parseScimFilter } from "../../core/scim/filter";
import { interpretGroupPatch, memberIdsOf } from "../../core/scim/patch";
import { slugify, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { type Tx, writeTx } from "../../storage/dialect";
import {
  deleteIdpGroup,
  findIdpGroupByName,
  findIdpGroupByScimId,
  groupMemberIds,
  type IdpGroupRow,
  insertIdpGroup,
  listScimGroups,
  setGroupMember,
  updateIdpGroup,
} from "../../storage/identity/idp-groups";
import { insertTeam } from "../../storage/members/teams";
import type { OrgRow } from "../../storage/orgs/orgs";
import type { AuditLogServices } from "../identity/audit-log";
import { applyGroupMapping } from "../identity/provisioning";
import { groupResource, listResponse, pageOf } from "./shapes";
import type { ScimTokenServices } from "./token";

type Json = Record<string, unknown>;

export interface ScimGroupServices {
  list(authorization: string | null, orgSlug: string, query: URLSearchParams): Promise<Json>;
  get(authorization: string | null, orgSlug: string, id: string, query: URLSearchParams): Promise<Json>;
  create(authorization: string | null, orgSlug: string, body: unknown): Promise<Json>;
  replace(authorization: string | null, orgSlug: string, id: string, body: unknown): Promise<Json>;
  patch(authorization: string | null, orgSlug: string, id: string, body: unknown): Promise<Json>;
  remove(authorization: string | null, orgSlug: string, id: string): Promise<void>;
}

const GroupSchema = z.object({
  displayName: z.string().trim().min(1, "displayName is required.").max(128),
  externalId: z.string().trim().max(500).nullish(),
  members: z.unknown().optional(),
});

type UserTable = { user: { id: string; email: string } };

function withoutMembers(query: URLSearchParams): boolean {
  return /(^|,)\s*members\s*(,|$)/i.test(query.get("excludedAttributes") ?? "");
}

export function createScimGroups(deps: {
  db: Db;
  now: () => number;
  tokens: ScimTokenServices;
  audit: AuditLogServices;
}): ScimGroupServices {
  const { db, now, tokens, audit } = deps;

  async function one(org: OrgRow, id: string): Promise<IdpGroupRow> {
    const g = /^[\w-]{1,100}$/.test(id) ? await findIdpGroupByScimId(db, org.id, id) : undefined;
    if (!g) throw new AppError("not_found", "No such group in this organization.");
    return g;
  }

  async function membersOf(groupId: number): Promise<{ userId: string; email: string }[]> {
    const ids = await groupMemberIds(db, groupId, "scim");
    if (ids.length === 0) return [];
    const k = db.kysely as unknown as import("kysely").Kysely<UserTable>;
    const rows = await k.selectFrom("user").select(["id", "email"]).where("id", "in", ids).execute();
    return rows.map((r) => ({ userId: r.id, email: r.email })).sort((a, b) => a.email.localeCompare(b.email));
  }

  async function resource(org: OrgRow, g: IdpGroupRow, query?: URLSearchParams): Promise<Json> {
    const members = query && withoutMembers(query) ? null : await membersOf(g.id);
    return groupResource(tokens.baseUrl(org.slug), g, members);
  }

  /** The ids among `ids` that are members of the organization (others are ignored: not provisioned here). */
  async function orgMembers(tx: Tx, orgId: number, ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await tx
      .selectFrom("members")
      .select("user_id")
      .where("org_id", "=", orgId)
      .where("user_id", "in", [...new Set(ids)])
      .execute();
    return rows.map((r) => r.user_id);
  }

  /** Re-applies the mapping to each person touched (their managed teams and role follow their groups). */
  async function reapply(tx: Tx, orgId: number, userIds: Iterable<string>): Promise<void> {
    for (const userId of new Set(userIds)) {
      const scim = await tx
        .selectFrom("scim_users")
        .select("active")
        .where("org_id", "=", orgId)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      await applyGroupMapping(tx, orgId, userId, { joined: false, scimManaged: Number(scim?.active ?? 0) === 1 });
    }
  }

  /** Sets the group's SCIM members: adds `add`, removes `remove`, or makes them exactly `replace`. */
  async function changeMembers(tx: Tx, org: OrgRow, g: IdpGroupRow, change: { add: string[]; remove: string[]; replace?: string[] }) {
    const before = new Set(await groupMemberIds(tx, g.id, "scim"));
    const after = new Set(change.replace ? await orgMembers(tx, org.id, change.replace) : before);
    if (!change.replace) {
      for (const id of await orgMembers(tx, org.id, change.add)) after.add(id);
      for (const id of change.remove) after.delete(id);
    }
    const added = [...after].filter((id) => !before.has(id));
    const removed = [...before].filter((id) => !after.has(id));
    for (const id of added) await setGroupMember(tx, g.id, id, "scim", true);
    for (const id of removed) await setGroupMember(tx, g.id, id, "scim", false);
    await reapply(tx, org.id, [...added, ...removed]);
    return { added: added.length, removed: removed.length };
  }

  /** The team a new group maps to: the one of its name, else a new one. */
  async function teamFor(tx: Tx, orgId: number, name: string): Promise<number> {
    const base = slugify(name);
    const existing = await tx.selectFrom("teams").select("id").where("org_id", "=", orgId).where("slug", "=", base).executeTakeFirst();
    if (existing) return Number(existing.id);
    const taken = new Set((await tx.selectFrom("teams").select("slug").where("org_id", "=", orgId).execute()).map((t) => t.slug));
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base.slice(0, 45)}-${n}`;
    return insertTeam(tx, { orgId, slug, name, now: now() });
  }

  function record(org: OrgRow, action: string, target: string, details: Json | null = null) {
    return audit.record({ orgId: org.id, actorUserId: null, actor: "SCIM", action, target, details });
  }

  async function rename(tx: Tx, org: OrgRow, g: IdpGroupRow, name: string): Promise<void> {
    if (name === g.name) return;
    const clash = await findIdpGroupByName(tx, org.id, name);
    if (clash && clash.id !== g.id) throw new AppError("scim_uniqueness", `A group named "${name}" exists.`);
    await updateIdpGroup(tx, g.id, { name, updatedAt: now() });
    // A team named after the group follows its renames; one an owner named otherwise keeps its name.
    if (g.teamId !== null) await tx.updateTable("teams").set({ name }).where("id", "=", g.teamId).where("name", "=", g.name).execute();
  }

  return {
    async list(authorization, orgSlug, query) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const filter = parseScimFilter(query.get("filter"), ["displayname", "externalid", "id"]);
      const page = pageOf(query);
      const { total, rows } = await listScimGroups(db, org.id, {
        offset: page.offset,
        limit: page.limit,
        name: filter.displayname,
        externalId: filter.externalid,
        scimId: filter.id,
      });
      return listResponse(await Promise.all(rows.map((g) => resource(org, g, query))), total, page.startIndex);
    },

    async get(authorization, orgSlug, id, query) {
      const org = await tokens.authenticate(authorization, orgSlug);
      return resource(org, await one(org, id), query);
    },

    async create(authorization, orgSlug, body) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const b = validate(GroupSchema, body);
      const members = b.members === undefined || b.members === null ? [] : memberIdsOf(b.members);
      const scimId = randomUUID();
      const result = await writeTx(db, async (tx) => {
        const existing = await findIdpGroupByName(tx, org.id, b.displayName);
        if (existing?.scimId)
          throw new AppError("scim_uniqueness", `A group named "${b.displayName}" exists: find it with filter=displayName eq "…".`);
        let g: IdpGroupRow;
        if (existing) {
          // An owner mapped this name before the provider pushed it: the push adopts that mapping.
          await updateIdpGroup(tx, existing.id, {
            scimId,
            externalId: b.externalId ?? null,
            teamId: existing.teamId ?? (await teamFor(tx, org.id, b.displayName)),
            updatedAt: now(),
          });
          g = (await findIdpGroupByScimId(tx, org.id, scimId)) as IdpGroupRow;
        } else {
          const teamId = await teamFor(tx, org.id, b.displayName);
          const at = now();
          const id = await insertIdpGroup(tx, {
            orgId: org.id,
            name: b.displayName,
            scimId,
            externalId: b.externalId ?? null,
            teamId,
            role: null,
            createdAt: at,
            updatedAt: at,
          });
          g = {
            id,
            orgId: org.id,
            name: b.displayName,
            scimId,
            externalId: b.externalId ?? null,
            teamId,
            role: null,
            createdAt: at,
            updatedAt: at,
          };
        }
        const changed = await changeMembers(tx, org, g, { add: members, remove: [] });
        return { g, changed };
      });
      await record(org, "scim.group.create", b.displayName, { members: result.changed.added });
      return resource(org, result.g);
    },

    async replace(authorization, orgSlug, id, body) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const g = await one(org, id);
      const b = validate(GroupSchema, body);
      const changed = await writeTx(db, async (tx) => {
        await rename(tx, org, g, b.displayName);
        if (b.externalId !== undefined) await updateIdpGroup(tx, g.id, { externalId: b.externalId ?? null, updatedAt: now() });
        return changeMembers(tx, org, g, {
          add: [],
          remove: [],
          replace: b.members === undefined || b.members === null ? [] : memberIdsOf(b.members),
        });
      });
      await record(org, "scim.group.update", b.displayName, changed);
      return resource(org, await one(org, id));
    },

    async patch(authorization, orgSlug, id, body) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const g = await one(org, id);
      const p = interpretGroupPatch(body);
      const changed = await writeTx(db, async (tx) => {
        if (p.displayName !== undefined) await rename(tx, org, g, p.displayName);
        if (p.externalId !== undefined) await updateIdpGroup(tx, g.id, { externalId: p.externalId, updatedAt: now() });
        return changeMembers(tx, org, g, p);
      });
      await record(org, "scim.group.update", p.displayName ?? g.name, {
        ...changed,
        ...(p.displayName && p.displayName !== g.name ? { renamedFrom: g.name } : {}),
      });
      return resource(org, await one(org, id));
    },

    async remove(authorization, orgSlug, id) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const g = await one(org, id);
      await writeTx(db, async (tx) => {
        const touched = await tx.selectFrom("idp_group_members").select("user_id").where("group_id", "=", g.id).execute();
        await deleteIdpGroup(tx, g.id);
        await reapply(
          tx,
          org.id,
          touched.map((r) => r.user_id),
        );
      });
      await record(org, "scim.group.delete", g.name);
    },
  };
}
