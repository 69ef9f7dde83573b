/**
 * API tokens in the UI: organization tokens (for CI; admins and owners; always Sentry's `org:ci`:
 * releases, deploys, source maps and the reads they need, whatever boxes a form or script sends)
 * in Sentry's `sntrys_` form, which sentry-cli and the bundler plugins read the server URL and org
 * from, and personal tokens (`sntryu_` + 64 hex, as sentry-cli expects). Shown once, stored as a
 * sha256 hash, with name, last use, optional expiry and revocation. A token never does more than
 * its creator's current role (the permission table checks the role on every call) and dies with
 * the creator's membership; an organization token works in its organization only. The lists say
 * what each token can do now (`can`), from the same table.
 */
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { AppError } from "../../core/errors";
import { expandScopes, TOKEN_SCOPES } from "../../core/token-scopes";
import { nameSchema, validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { listMembers } from "../../storage/members/members";
import { lastPasswordResetAt } from "../../storage/members/password-resets";
import { deletePersonalTokens, deleteToken, listTokens, type TokenListRow } from "../../storage/members/token-admin";
import { insertToken } from "../../storage/members/tokens";
import { listMemberships } from "../../storage/orgs/orgs";
import { requirePermission } from "../access/access";
import { ORG_TOKEN_SCOPE, ROLE_ORDER, scopesForRole, type TokenScope, tokenAbilities } from "../access/permissions";
import type { OrgSummary, Role, Viewer } from "../types";

const DAY = 24 * 3600 * 1000;

export interface TokenInfo {
  id: number;
  name: string;
  /** the first characters, to recognise it */
  prefix: string;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
  expiresAt: number | null;
  /** What it can do now, in the permission table's words (its scopes narrowed by the creator's current role). */
  can: string[];
  /** The role `can` was worked out with: the creator's current role (a personal token's: their highest). */
  asRole: Role | null;
  /** An organization token's creator and their current role there (null: no longer a member, the token is dead). */
  createdBy?: { name: string; role: Role | null };
}

export interface CreatedToken {
  token: TokenInfo;
  /** the secret: shown once */
  secret: string;
}

export interface TokenInput {
  name: string;
  scopes?: string[];
  /** days until it stops working; empty: never */
  expiresInDays?: number | null;
}

export interface TokenServices {
  listOrg(viewer: Viewer, orgSlug: string): Promise<TokenInfo[]>;
  createOrg(viewer: Viewer, orgSlug: string, input: TokenInput): Promise<CreatedToken>;
  revokeOrg(viewer: Viewer, orgSlug: string, tokenId: number): Promise<void>;
  listPersonal(viewer: Viewer): Promise<TokenInfo[]>;
  createPersonal(viewer: Viewer, input: TokenInput): Promise<CreatedToken>;
  /** The scopes the viewer's highest role allows on a personal token (the form offers only these). */
  personalScopes(viewer: Viewer): Promise<TokenScope[]>;
  revokePersonal(viewer: Viewer, tokenId: number): Promise<void>;
  /**
   * Tokens survive a password reset (as GitHub's do): after one, the account page says when it was
   * and how many of the viewer's personal tokens are older than it. Null without a reset or such tokens.
   */
  resetNotice(viewer: Viewer): Promise<{ resetAt: number; olderTokens: number } | null>;
  /** Revokes every personal token of the viewer (their own only; organization tokens stay). Returns how many. */
  revokeAllPersonal(viewer: Viewer): Promise<number>;
}

/** The scopes a user may put on a personal token: what their highest role in any organization allows. */
export async function scopesOfUser(db: Db, userId: string): Promise<TokenScope[]> {
  const roles = (await listMemberships(db, userId)).map((m) => m.role);
  const allowed = new Set(roles.flatMap((r) => scopesForRole(r)));
  return TOKEN_SCOPES.filter((s) => allowed.has(s));
}

/** `scope_not_allowed` naming the scopes beyond `allowed`. */
export function refuseBeyond(scopes: readonly string[], allowed: readonly string[]): void {
  const beyond = scopes.filter((s) => !allowed.includes(s));
  if (beyond.length > 0)
    throw new AppError(
      "scope_not_allowed",
      `Your role does not allow ${beyond.join(", ")} on a token; allowed: ${allowed.join(", ") || "none"}.`,
      { fields: [{ field: "scopes", rule: "role", message: `not allowed for your role: ${beyond.join(", ")}` }] },
    );
}

const hash = (s: string) => createHash("sha256").update(s).digest("hex");
const b64 = (s: string) => Buffer.from(s).toString("base64");

const InputSchema = z.object({
  name: nameSchema,
  scopes: z.array(z.enum(TOKEN_SCOPES)).min(1, "choose at least one scope").max(TOKEN_SCOPES.length).optional(),
  expiresInDays: z.number().int().min(1).max(3650).nullable().optional(),
});

/** Organization tokens: the scopes (if sent) are still checked to be names Sentry knows, but the token is `org:ci`. */
const OrgInputSchema = InputSchema.extend({
  scopes: z.array(z.enum(TOKEN_SCOPES)).max(TOKEN_SCOPES.length).optional(),
});

/** The highest of some roles (a personal token's reach is its creator's highest role), null for none. */
function highest(roles: Role[]): Role | null {
  return [...ROLE_ORDER].reverse().find((r) => roles.includes(r)) ?? null;
}

function info(r: TokenListRow, role: Role | null): TokenInfo {
  const credential =
    r.orgId === null ? { kind: "user-token" as const, scopes: r.scopes } : { kind: "org-token" as const, scopes: r.scopes };
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    scopes: r.scopes,
    createdAt: r.createdAt,
    lastUsedAt: r.lastUsedAt,
    expiresAt: r.expiresAt,
    can: tokenAbilities(role, credential),
    asRole: role,
  };
}

export function createTokenServices(deps: {
  db: Db;
  publicUrl: string;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
}): TokenServices {
  const { db, now } = deps;

  function browserOnly(viewer: Viewer): void {
    if (viewer.scopes) throw new AppError("forbidden", "Tokens are managed from a signed-in browser session.");
  }

  async function admin(viewer: Viewer, orgSlug: string): Promise<OrgSummary> {
    const org = await deps.membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "orgtoken.manage");
    return org;
  }

  /** Sentry's org token: the payload tells sentry-cli the server URL and the org (no SENTRY_URL needed). */
  function orgSecret(orgSlug: string): string {
    const payload = { iat: now() / 1000, url: deps.publicUrl, region_url: deps.publicUrl, org: orgSlug };
    const secret = randomBytes(32).toString("base64").replace(/=+$/, "");
    return `sntrys_${b64(JSON.stringify(payload))}_${secret}`;
  }

  async function create(
    userId: string,
    orgId: number | null,
    secret: string,
    v: z.infer<typeof InputSchema>,
    scopes: string[],
    role: Role | null,
  ) {
    const expiresAt = v.expiresInDays ? now() + v.expiresInDays * DAY : null;
    const prefix = orgId === null ? secret.slice(0, 14) : `sntrys_…${secret.slice(-6)}`;
    const id = await insertToken(db, {
      userId,
      orgId,
      name: v.name,
      tokenHash: hash(secret),
      tokenPrefix: prefix,
      scopes,
      now: now(),
      expiresAt,
    });
    const row = { id, userId, orgId, name: v.name, prefix, scopes, createdAt: now(), lastUsedAt: null, expiresAt };
    return { token: info(row, role), secret };
  }

  async function personalRole(userId: string): Promise<Role | null> {
    return highest((await listMemberships(db, userId)).map((m) => m.role));
  }

  return {
    async listOrg(viewer, orgSlug) {
      const org = await admin(viewer, orgSlug);
      const members = new Map((await listMembers(db, org.id)).map((m) => [m.userId, m]));
      return (await listTokens(db, { orgId: org.id })).map((t) => {
        const creator = members.get(t.userId);
        return {
          ...info(t, creator?.role ?? null),
          createdBy: { name: creator?.name || creator?.email || "a former member", role: creator?.role ?? null },
        };
      });
    },
    async createOrg(viewer, orgSlug, input) {
      const org = await admin(viewer, orgSlug);
      // Whatever boxes were ticked (older forms, scripts), an organization token is for CI: org:ci.
      const v = validate(OrgInputSchema, input);
      const created = await create(viewer.userId, org.id, orgSecret(org.slug), { ...v, scopes: undefined }, [ORG_TOKEN_SCOPE], org.role);
      return { ...created, token: { ...created.token, createdBy: { name: viewer.name || viewer.email, role: org.role } } };
    },
    async revokeOrg(viewer, orgSlug, tokenId) {
      const org = await admin(viewer, orgSlug);
      if (!(await listTokens(db, { orgId: org.id })).some((t) => t.id === tokenId)) throw new AppError("not_found", "Token not found.");
      await deleteToken(db, tokenId);
    },
    async listPersonal(viewer) {
      browserOnly(viewer);
      const role = await personalRole(viewer.userId);
      return (await listTokens(db, { userId: viewer.userId })).map((t) => info(t, role));
    },
    async createPersonal(viewer, input) {
      browserOnly(viewer);
      const v = validate(InputSchema, input);
      const scopes = v.scopes ?? ["org:read", "project:read", "event:read"];
      refuseBeyond(scopes, await scopesOfUser(db, viewer.userId));
      // Stored with what they carry (Sentry's hierarchy), so the token list says all it reads and writes.
      const stored = expandScopes(scopes);
      return create(viewer.userId, null, `sntryu_${randomBytes(32).toString("hex")}`, v, stored, await personalRole(viewer.userId));
    },
    async personalScopes(viewer) {
      browserOnly(viewer);
      return scopesOfUser(db, viewer.userId);
    },
    async revokePersonal(viewer, tokenId) {
      browserOnly(viewer);
      if (!(await listTokens(db, { userId: viewer.userId })).some((t) => t.id === tokenId))
        throw new AppError("not_found", "Token not found.");
      await deleteToken(db, tokenId);
    },
    async resetNotice(viewer) {
      browserOnly(viewer);
      const resetAt = await lastPasswordResetAt(db, viewer.userId);
      if (resetAt === null) return null;
      const olderTokens = (await listTokens(db, { userId: viewer.userId })).filter((t) => t.createdAt <= resetAt).length;
      return olderTokens > 0 ? { resetAt, olderTokens } : null;
    },
    async revokeAllPersonal(viewer) {
      browserOnly(viewer);
      return deletePersonalTokens(db, viewer.userId);
    },
  };
}
