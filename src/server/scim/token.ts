/**
 * The organization's SCIM bearer token (issue 42): made by an owner on the single sign-on page,
 * shown once, stored as its sha256; making a new one ends the old at once. Every SCIM request
 * names the organization in its path and must carry that organization's token: any other answer
 * (no token, another organization's, no such organization) is the same `scim_unauthorized`.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError } from "../../core/errors";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { deleteScimToken, findScimToken, orgOfScimTokenHash, putScimToken, touchScimToken } from "../../storage/identity/scim";
import { findOrgBySlug, type OrgRow } from "../../storage/orgs/orgs";
import type { Action } from "../access/permissions";
import type { AuditLogServices } from "../identity/audit-log";
import type { OrgSummary, Viewer } from "../types";

export const SCIM_TOKEN_PREFIX = "errata_scim_";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export interface ScimTokenView {
  exists: boolean;
  prefix: string | null;
  createdAt: number | null;
  lastUsedAt: number | null;
  /** the SCIM base URL to enter at the identity provider */
  baseUrl: string;
  canEdit: boolean;
}

export interface ScimTokenServices {
  view(viewer: Viewer, orgSlug: string): Promise<ScimTokenView>;
  /** A new token (returned once); the previous one stops working. */
  rotate(viewer: Viewer, orgSlug: string): Promise<{ token: string; view: ScimTokenView }>;
  revoke(viewer: Viewer, orgSlug: string): Promise<void>;
  /** The organization a SCIM request may act on, or `scim_unauthorized`. */
  authenticate(authorization: string | null, orgSlug: string): Promise<OrgRow>;
  baseUrl(orgSlug: string): string;
}

export function createScimTokens(deps: {
  db: Db;
  publicUrl: string;
  now: () => number;
  audit: AuditLogServices;
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
}): ScimTokenServices {
  const { db, now, audit } = deps;
  const baseUrl = (orgSlug: string) => `${deps.publicUrl}/api/0/organizations/${encodeURIComponent(orgSlug)}/scim/v2`;

  async function view(org: OrgSummary): Promise<ScimTokenView> {
    const t = await findScimToken(db, org.id);
    return {
      exists: t !== undefined,
      prefix: t?.tokenPrefix ?? null,
      createdAt: t?.createdAt ?? null,
      lastUsedAt: t?.lastUsedAt ?? null,
      baseUrl: baseUrl(org.slug),
      canEdit: org.role === "owner",
    };
  }

  return {
    baseUrl,

    async view(viewer, orgSlug) {
      return view(await deps.authorize(viewer, orgSlug, "sso.read"));
    },

    async rotate(viewer, orgSlug) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      const token = `${SCIM_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
      const replaced = (await findScimToken(db, org.id)) !== undefined;
      await writeTx(db, (tx) =>
        putScimToken(tx, {
          orgId: org.id,
          tokenHash: hashToken(token),
          tokenPrefix: token.slice(0, SCIM_TOKEN_PREFIX.length + 4),
          createdBy: viewer.userId,
          now: now(),
        }),
      );
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: replaced ? "scim.token.rotate" : "scim.token.create",
        target: "SCIM token",
        details: null,
      });
      return { token, view: await view(org) };
    },

    async revoke(viewer, orgSlug) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      await writeTx(db, (tx) => deleteScimToken(tx, org.id));
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: "scim.token.revoke",
        target: "SCIM token",
        details: null,
      });
    },

    async authenticate(authorization, orgSlug) {
      const m = authorization?.match(/^Bearer\s+(\S+)$/i);
      const token = m?.[1];
      if (!token?.startsWith(SCIM_TOKEN_PREFIX)) throw new AppError("scim_unauthorized");
      const [org, tokenOrg] = await Promise.all([findOrgBySlug(db, orgSlug), orgOfScimTokenHash(db, hashToken(token))]);
      if (!org || tokenOrg !== org.id) throw new AppError("scim_unauthorized");
      // Last-used bookkeeping never fails the request.
      touchScimToken(db, org.id, now()).catch(() => {});
      return org;
    },
  };
}
