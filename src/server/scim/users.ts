/**
 * SCIM 2.0 Users (RFC 7644) at Sentry's path, /api/0/organizations/{org}/scim/v2/Users: the
 * organization's members as the identity provider sees them. Creating provisions an account
 * (without a password: the person signs in through the provider) and a membership with the
 * default role of the organization's SSO; `active: false` (Okta's PATCH, Entra's "False") or
 * DELETE deprovisions: the membership goes, with the person's sessions and personal tokens, at
 * once — never the last owner. A deactivated person stays listed as inactive until deleted, so the
 * provider reads back what it disabled and may reactivate them.
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { parseScimFilter } from "../../core/scim/filter";
import { emailOf, interpretUserPatch, scimBoolean, type UserChanges } from "../../core/scim/patch";
import { emailSchema, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { type Tx, writeTx } from "../../storage/dialect";
import { removeFromAllGroups } from "../../storage/identity/idp-groups";
import { findOrgSaml } from "../../storage/identity/saml";
import { accountCreatedHere, listScimUsers, type ScimUserRow, upsertScimUser } from "../../storage/identity/scim";
import { countOwners, deleteMember, findMemberRole } from "../../storage/members/members";
import { findOrgSso } from "../../storage/members/sso";
import { deletePersonalTokens } from "../../storage/members/token-admin";
import { type OrgRow, upsertMember } from "../../storage/orgs/orgs";
import type { MembersTable } from "../../storage/schema";
import { type Auth, createUserWithoutPassword, findUserByEmail, revokeUserSessions, setUserName } from "../auth/auth";
import type { AuditLogServices } from "../identity/audit-log";
import { applyGroupMapping } from "../identity/provisioning";
import { listResponse, pageOf, userResource } from "./shapes";
import type { ScimTokenServices } from "./token";

type Json = Record<string, unknown>;

export interface ScimUserServices {
  list(authorization: string | null, orgSlug: string, query: URLSearchParams): Promise<Json>;
  get(authorization: string | null, orgSlug: string, id: string): Promise<Json>;
  create(authorization: string | null, orgSlug: string, body: unknown): Promise<Json>;
  replace(authorization: string | null, orgSlug: string, id: string, body: unknown): Promise<Json>;
  patch(authorization: string | null, orgSlug: string, id: string, body: unknown): Promise<Json>;
  remove(authorization: string | null, orgSlug: string, id: string): Promise<void>;
}

const CreateSchema = z.object({
  userName: z.string().trim().min(1, "userName is required.").max(320),
  externalId: z.string().trim().max(500).nullish(),
  displayName: z.string().trim().max(128).nullish(),
  name: z
    .object({ formatted: z.string().nullish(), givenName: z.string().nullish(), familyName: z.string().nullish() })
    .partial()
    .nullish(),
  emails: z.unknown().optional(),
  active: z.unknown().optional(),
});

/** A full User body (POST, PUT) read into the changes Errata keeps. */
function changesOfBody(body: unknown): UserChanges & { userName: string } {
  const b = validate(CreateSchema, body);
  const given = b.name?.givenName?.trim() ?? "";
  const family = b.name?.familyName?.trim() ?? "";
  const display = b.displayName?.trim() || b.name?.formatted?.trim() || `${given} ${family}`.trim();
  return {
    userName: b.userName,
    externalId: b.externalId ?? null,
    ...(display ? { displayName: display.slice(0, 128) } : {}),
    ...(emailOf(b.emails) ? { email: emailOf(b.emails) } : {}),
    active: b.active === undefined ? true : scimBoolean(b.active, "active"),
  };
}

function displayNameOf(c: UserChanges): string | undefined {
  if (c.displayName) return c.displayName;
  if (c.formatted) return c.formatted;
  const n = `${c.givenName ?? ""} ${c.familyName ?? ""}`.trim();
  return n || undefined;
}

export function createScimUsers(deps: {
  db: Db;
  auth: Auth;
  now: () => number;
  tokens: ScimTokenServices;
  audit: AuditLogServices;
}): ScimUserServices {
  const { db, auth, now, tokens, audit } = deps;

  async function defaultRole(orgId: number): Promise<MembersTable["role"]> {
    return (await findOrgSaml(db, orgId))?.defaultRole ?? (await findOrgSso(db, orgId))?.defaultRole ?? "member";
  }

  async function one(org: OrgRow, id: string): Promise<ScimUserRow> {
    const found = (await listScimUsers(db, org.id, { offset: 0, limit: 1, userId: id })).rows[0];
    if (!found) throw new AppError("not_found", "No such user in this organization.");
    return found;
  }

  function record(org: OrgRow, action: string, target: string, details: Json | null = null) {
    return audit.record({ orgId: org.id, actorUserId: null, actor: "SCIM", action, target, details });
  }

  /** Makes the person a member again (creation, reactivation) with the default role and their groups' teams. */
  async function provision(tx: Tx, org: OrgRow, userId: string, role: MembersTable["role"]): Promise<void> {
    if (!(await findMemberRole(tx, org.id, userId))) {
      await upsertMember(tx, { orgId: org.id, userId, role, now: now() });
      await applyGroupMapping(tx, org.id, userId, { joined: true, scimManaged: true });
    } else {
      await applyGroupMapping(tx, org.id, userId, { joined: false, scimManaged: true });
    }
  }

  /** Removes the membership; the person's sessions and personal tokens end at once. */
  async function deprovision(org: OrgRow, user: ScimUserRow, keepRow: boolean): Promise<void> {
    await writeTx(db, async (tx) => {
      const role = await findMemberRole(tx, org.id, user.userId);
      if (role === "owner" && (await countOwners(tx, org.id)) <= 1)
        throw new AppError(
          "last_owner",
          "This is the organization's last owner: SCIM cannot deprovision them. Make someone else owner first.",
        );
      if (role) await deleteMember(tx, org.id, user.userId);
      await removeFromAllGroups(tx, org.id, user.userId);
      if (keepRow)
        await upsertScimUser(tx, {
          orgId: org.id,
          userId: user.userId,
          externalId: user.externalId,
          userName: user.userName ?? user.email,
          active: false,
          now: now(),
        });
      else await tx.deleteFrom("scim_users").where("org_id", "=", org.id).where("user_id", "=", user.userId).execute();
    });
    if (!user.active) return;
    await revokeUserSessions(auth, user.userId);
    const tokensDeleted = await deletePersonalTokens(db, user.userId);
    await record(org, "scim.user.deprovision", user.email, { sessionsEnded: true, personalTokensDeleted: tokensDeleted });
  }

  async function apply(org: OrgRow, user: ScimUserRow, c: UserChanges): Promise<ScimUserRow> {
    if (c.active === false && user.active) {
      await deprovision(org, user, true);
    } else {
      const role = await defaultRole(org.id);
      const reactivated = c.active === true && !user.active;
      await writeTx(db, async (tx) => {
        await upsertScimUser(tx, {
          orgId: org.id,
          userId: user.userId,
          externalId: c.externalId !== undefined ? c.externalId : user.externalId,
          userName: c.userName ?? user.userName ?? user.email,
          active: user.active || reactivated,
          now: now(),
        });
        if (reactivated) await provision(tx, org, user.userId, role);
        else if (user.active) await applyGroupMapping(tx, org.id, user.userId, { joined: false, scimManaged: true });
      });
      if (reactivated) await record(org, "scim.user.reactivate", user.email);
    }
    // The account's name follows the provider only when its provisioning made the account.
    const name = displayNameOf(c);
    if (name && name !== user.name && (await accountCreatedHere(db, org.id, user.userId))) await setUserName(auth, user.userId, name);
    return one(org, user.userId);
  }

  return {
    async list(authorization, orgSlug, query) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const filter = parseScimFilter(query.get("filter"), ["username", "externalid", "id"]);
      const page = pageOf(query);
      const { total, rows } = await listScimUsers(db, org.id, {
        offset: page.offset,
        limit: page.limit,
        ...(filter.username !== undefined ? { userName: filter.username } : {}),
        ...(filter.externalid !== undefined ? { externalId: filter.externalid } : {}),
        ...(filter.id !== undefined ? { userId: filter.id } : {}),
      });
      const base = tokens.baseUrl(org.slug);
      return listResponse(
        rows.map((u) => userResource(base, u)),
        total,
        page.startIndex,
      );
    },

    async get(authorization, orgSlug, id) {
      const org = await tokens.authenticate(authorization, orgSlug);
      return userResource(tokens.baseUrl(org.slug), await one(org, id));
    },

    async create(authorization, orgSlug, body) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const c = changesOfBody(body);
      const email = validate(emailSchema, c.email ?? c.userName).toLowerCase();
      const taken = await listScimUsers(db, org.id, { offset: 0, limit: 1, userName: c.userName });
      if (taken.total > 0)
        throw new AppError("scim_uniqueness", `A user with userName "${c.userName}" exists: find it with filter=userName eq "…".`);
      const existing = await findUserByEmail(auth, email);
      if (existing && !(await findMemberRole(db, org.id, existing.id)))
        throw new AppError(
          "scim_uniqueness",
          `An Errata account with ${email} exists outside this organization: invite it from the members page (it joins when its owner accepts); SCIM then finds it by userName.`,
        );
      const name = displayNameOf(c) ?? email.split("@")[0] ?? email;
      const userId = existing?.id ?? (await createUserWithoutPassword(auth, { email, name })).id;
      const role = await defaultRole(org.id);
      await writeTx(db, async (tx) => {
        await upsertScimUser(tx, {
          orgId: org.id,
          userId,
          externalId: c.externalId ?? null,
          userName: c.userName,
          active: c.active !== false,
          createdAccount: !existing,
          now: now(),
        });
        if (c.active !== false) await provision(tx, org, userId, role);
      });
      await record(org, existing ? "scim.user.link" : "scim.user.create", email, {
        role: existing ? undefined : role,
        active: c.active !== false,
      });
      return userResource(tokens.baseUrl(org.slug), await one(org, userId));
    },

    async replace(authorization, orgSlug, id, body) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const user = await one(org, id);
      return userResource(tokens.baseUrl(org.slug), await apply(org, user, changesOfBody(body)));
    },

    async patch(authorization, orgSlug, id, body) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const user = await one(org, id);
      return userResource(tokens.baseUrl(org.slug), await apply(org, user, interpretUserPatch(body)));
    },

    async remove(authorization, orgSlug, id) {
      const org = await tokens.authenticate(authorization, orgSlug);
      const user = await one(org, id);
      await deprovision(org, user, false);
      if (!user.active) await record(org, "scim.user.delete", user.email);
    },
  };
}
