/**
 * Group → team mappings (issue 42), on the single sign-on page: an owner names an identity-provider
 * group (as the SAML or OIDC groups attribute sends it, or as SCIM pushed it) and the team it
 * becomes and/or the role it gives. Saving or removing a mapping re-applies it at once to everyone
 * in the group; sign-ins and SCIM changes apply it from then on.
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import {
  allGroupMemberIds,
  deleteIdpGroup,
  findIdpGroupById,
  findIdpGroupByName,
  insertIdpGroup,
  listIdpGroups,
  updateIdpGroup,
} from "../../storage/identity/idp-groups";
import { listTeams } from "../../storage/members/teams";
import type { Action } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";
import type { AuditLogServices } from "./audit-log";
import { applyGroupMapping } from "./provisioning";

export interface GroupMappingView {
  id: number;
  name: string;
  /** pushed by SCIM (its members come from there) or named by an owner */
  source: "scim" | "owner";
  team: { slug: string; name: string } | null;
  role: "viewer" | "member" | "admin" | null;
  members: number;
}

export interface GroupMappingsPage {
  groups: GroupMappingView[];
  teams: { slug: string; name: string }[];
  canEdit: boolean;
}

export interface GroupMappingServices {
  page(viewer: Viewer, orgSlug: string): Promise<GroupMappingsPage>;
  save(viewer: Viewer, orgSlug: string, input: unknown): Promise<void>;
  remove(viewer: Viewer, orgSlug: string, groupId: number): Promise<void>;
}

const SaveSchema = z.object({
  group: z.string().trim().min(1, "Name the group as the identity provider sends it.").max(200),
  team: z.string().trim().max(100).default(""),
  role: z.enum(["", "viewer", "member", "admin"]).default(""),
});

export function createGroupMappings(deps: {
  db: Db;
  now: () => number;
  audit: AuditLogServices;
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
}): GroupMappingServices {
  const { db, now, audit } = deps;

  async function reapply(orgId: number, groupId: number, extra: string[] = []): Promise<void> {
    const users = new Set([...(await allGroupMemberIds(db, groupId)), ...extra]);
    await writeTx(db, async (tx) => {
      for (const userId of users) {
        const scim = await tx
          .selectFrom("scim_users")
          .select("active")
          .where("org_id", "=", orgId)
          .where("user_id", "=", userId)
          .executeTakeFirst();
        await applyGroupMapping(tx, orgId, userId, { joined: false, scimManaged: Number(scim?.active ?? 0) === 1 });
      }
    });
  }

  return {
    async page(viewer, orgSlug) {
      const org = await deps.authorize(viewer, orgSlug, "sso.read");
      const [groups, teams] = await Promise.all([listIdpGroups(db, org.id), listTeams(db, org.id)]);
      const byId = new Map(teams.map((t) => [t.id, t]));
      const views: GroupMappingView[] = [];
      for (const g of groups) {
        const team = g.teamId === null ? undefined : byId.get(g.teamId);
        views.push({
          id: g.id,
          name: g.name,
          source: g.scimId ? "scim" : "owner",
          team: team ? { slug: team.slug, name: team.name } : null,
          role: g.role === "owner" ? null : g.role,
          members: (await allGroupMemberIds(db, g.id)).length,
        });
      }
      return { groups: views, teams: teams.map((t) => ({ slug: t.slug, name: t.name })), canEdit: org.role === "owner" };
    },

    async save(viewer, orgSlug, raw) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      const input = validate(SaveSchema, raw);
      const team = input.team ? (await listTeams(db, org.id)).find((t) => t.slug === input.team) : undefined;
      if (input.team && !team) throw AppError.field("team", "exists", "Choose one of the organization's teams.");
      if (!team && !input.role) throw AppError.field("team", "required", "Choose a team, a role, or both.");
      const role = input.role || null;
      const existing = await findIdpGroupByName(db, org.id, input.group);
      let id = existing?.id;
      await writeTx(db, async (tx) => {
        if (existing) await updateIdpGroup(tx, existing.id, { teamId: team?.id ?? null, role, updatedAt: now() });
        else
          id = await insertIdpGroup(tx, {
            orgId: org.id,
            name: input.group,
            scimId: null,
            externalId: null,
            teamId: team?.id ?? null,
            role,
            createdAt: now(),
            updatedAt: now(),
          });
      });
      await reapply(org.id, id as number);
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: "sso.group_mapping.save",
        target: input.group,
        details: { team: team?.slug ?? null, role },
      });
    },

    async remove(viewer, orgSlug, groupId) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      const g = Number.isSafeInteger(groupId) ? await findIdpGroupById(db, org.id, groupId) : undefined;
      if (!g) throw new AppError("not_found", "No such group mapping.");
      const members = await allGroupMemberIds(db, g.id);
      await writeTx(db, async (tx) => {
        // A group SCIM pushed stays (the provider owns it); only what it maps to goes.
        if (g.scimId) await updateIdpGroup(tx, g.id, { teamId: null, role: null, updatedAt: now() });
        else await deleteIdpGroup(tx, g.id);
      });
      await reapply(org.id, g.id, members);
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: "sso.group_mapping.remove",
        target: g.name,
        details: null,
      });
    },
  };
}
