/**
 * What a sign-in through the organization's identity provider (SAML or OpenID Connect) does to
 * accounts and memberships, and how identity-provider groups become teams — one set of rules for
 * both protocols and for SCIM:
 *
 *  - the account is found by the provider's subject; a new subject with the email of an existing
 *    account links to it only when that very account started the sign-in (signed in), or when this
 *    organization's SCIM created the account — else `sso_link_required`;
 *  - a person SCIM deactivated stays out (`sso_deprovisioned`): SCIM is the source of truth;
 *  - a newcomer joins with the default role; the groups the sign-in asserted (when the protocol
 *    sends them) replace those it asserted last time, and `applyGroupMapping` makes the managed
 *    team memberships and role follow every group the person is in (SCIM's and the sign-in's).
 */
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { type Tx, writeTx } from "../../storage/dialect";
import { applyManagedTeams, mappedForUser, setMemberIdpManaged, setSigninGroups } from "../../storage/identity/idp-groups";
import { accountCreatedHere } from "../../storage/identity/scim";
import { findMemberRole, setMemberRole } from "../../storage/members/members";
import { findSsoIdentity, linkSsoIdentity } from "../../storage/members/sso";
import { addToDefaultTeam } from "../../storage/members/teams";
import { type OrgRow, upsertMember } from "../../storage/orgs/orgs";
import type { MembersTable } from "../../storage/schema";
import { roleAtLeast } from "../access/permissions";
import { type Auth, createUserWithoutPassword, findUserByEmail } from "../auth/auth";

type Role = MembersTable["role"];

export interface SignInPerson {
  subject: string;
  email: string;
  name: string;
  /** the groups the sign-in asserted; null when the protocol sent none (nothing changes then) */
  groups: string[] | null;
}

export interface GroupMappingResult {
  teamsAdded: number[];
  teamsRemoved: number[];
  /** the role the groups gave, when it changed */
  role: Role | null;
}

/** The highest role of several (groups may map to different ones). */
function highest(roles: Role[]): Role | null {
  let best: Role | null = null;
  for (const r of roles) if (!best || roleAtLeast(r, best)) best = r;
  return best;
}

/**
 * Makes the member's managed teams and role follow their identity-provider groups. Owners keep
 * their role (a group never demotes or makes an owner); a member the groups give no role keeps
 * theirs. `joined`: a newcomer with no mapped team joins the default team, as before mappings.
 */
export async function applyGroupMapping(
  tx: Tx,
  orgId: number,
  userId: string,
  opts: { joined: boolean; scimManaged: boolean },
): Promise<GroupMappingResult> {
  const current = await findMemberRole(tx, orgId, userId);
  if (!current) return { teamsAdded: [], teamsRemoved: [], role: null };
  const { teamIds, roles } = await mappedForUser(tx, orgId, userId);
  const teams = await applyManagedTeams(tx, orgId, userId, teamIds);
  if (opts.joined && teamIds.length === 0) await addToDefaultTeam(tx, orgId, { userId });
  const mapped = highest(roles.filter((r) => r !== "owner"));
  let changed: Role | null = null;
  if (mapped && current !== "owner" && current !== mapped) {
    await setMemberRole(tx, orgId, userId, mapped);
    changed = mapped;
  }
  await setMemberIdpManaged(tx, orgId, userId, opts.scimManaged || (mapped !== null && current !== "owner"));
  return { teamsAdded: teams.added, teamsRemoved: teams.removed, role: changed };
}

export interface IdentityProvisioning {
  /**
   * The account a verified sign-in stands for, provisioned into the organization; the caller
   * makes its session. `startedBy`: the account signed in when the sign-in started (linking).
   */
  signIn(
    org: OrgRow,
    provider: { issuer: string; defaultRole: Role },
    person: SignInPerson,
    startedBy: string | null,
  ): Promise<{ userId: string; joined: boolean; mapping: GroupMappingResult }>;
}

export function createIdentityProvisioning(deps: { db: Db; auth: Auth; now: () => number }): IdentityProvisioning {
  const { db, auth, now } = deps;
  return {
    async signIn(org, provider, person, startedBy) {
      let userId = (await findSsoIdentity(db, org.id, provider.issuer, person.subject))?.userId;
      if (!userId) {
        const existing = await findUserByEmail(auth, person.email);
        if (existing && existing.id !== startedBy && !(await accountCreatedHere(db, org.id, existing.id)))
          throw new AppError("sso_link_required");
        userId = existing?.id ?? (await createUserWithoutPassword(auth, { email: person.email, name: person.name })).id;
      }
      const id = userId;
      return writeTx(db, async (tx) => {
        const scim = await tx
          .selectFrom("scim_users")
          .select("active")
          .where("org_id", "=", org.id)
          .where("user_id", "=", id)
          .executeTakeFirst();
        if (scim && Number(scim.active) === 0) throw new AppError("sso_deprovisioned");
        await linkSsoIdentity(tx, { orgId: org.id, issuer: provider.issuer, subject: person.subject, userId: id, now: now() });
        const joined = (await findMemberRole(tx, org.id, id)) === undefined;
        if (joined) await upsertMember(tx, { orgId: org.id, userId: id, role: provider.defaultRole, now: now() });
        if (person.groups !== null) await setSigninGroups(tx, org.id, id, person.groups);
        const mapping = await applyGroupMapping(tx, org.id, id, { joined, scimManaged: scim !== undefined });
        return { userId: id, joined, mapping };
      });
    },
  };
}
