/** Who is asking: a browser session (Better Auth's cookie) or a bearer API token (stored hashed). */
import { createHash } from "node:crypto";
import type { Db } from "../../storage/db";
import { findMemberRole } from "../../storage/members/members";
import { findTokenByHash, findUserProfile, touchToken } from "../../storage/members/tokens";
import type { AppServices } from "../services";
import type { Auth } from "./auth";

export function hashApiToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function createSessionServices(deps: { db: Db; auth: Auth; now: () => number }): AppServices["session"] {
  const { db, auth, now } = deps;
  return {
    async viewerFromHeaders(headers) {
      const session = await auth.api.getSession({ headers });
      if (!session) return null;
      return { userId: session.user.id, email: session.user.email, name: session.user.name };
    },
    async viewerFromToken(authorization) {
      const m = authorization?.match(/^Bearer\s+(\S+)$/i);
      if (!m) return null;
      const token = await findTokenByHash(db, hashApiToken(m[1] as string));
      if (!token || (token.expiresAt !== null && token.expiresAt < now())) return null;
      const user = await findUserProfile(db, token.userId);
      if (!user) return null;
      // An organization token dies with its creator's membership (removal deletes it too; this
      // also covers any path that ends a membership without going through that removal).
      if (token.orgId !== null && !(await findMemberRole(db, token.orgId, token.userId))) return null;
      // Last-used bookkeeping must never fail the request.
      touchToken(db, token.id, now()).catch(() => {});
      return { userId: user.id, email: user.email, name: user.name, scopes: token.scopes, tokenOrgId: token.orgId };
    },
  };
}
