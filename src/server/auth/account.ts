/**
 * The signed-in user's own account (`/account`): name, password change (needs the current one and
 * ends every other session), the active sessions and "sign out everywhere". Sessions are Better
 * Auth's; their secret tokens never leave this module (the page sees ids only).
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { nameSchema, passwordSchema, validate } from "../../core/validation";
import type { Viewer } from "../types";
import type { Auth } from "./auth";

export interface AccountSession {
  id: string;
  createdAt: number;
  lastActiveAt: number;
  userAgent: string | null;
  ipAddress: string | null;
  current: boolean;
}

export interface AccountPage {
  name: string;
  email: string;
  sessions: AccountSession[];
}

export interface AccountServices {
  get(viewer: Viewer, headers: Headers): Promise<AccountPage>;
  rename(viewer: Viewer, name: string): Promise<void>;
  /** Checks the current password, sets the new one, and ends every other session of the user. */
  changePassword(viewer: Viewer, headers: Headers, input: { current: string; next: string }): Promise<void>;
  /** Ends every session of the user, this one included. */
  signOutEverywhere(viewer: Viewer): Promise<void>;
}

const ms = (d: Date | string | number) => new Date(d).getTime();

export function createAccountServices(deps: { auth: Auth }): AccountServices {
  const { auth } = deps;

  function browserOnly(viewer: Viewer): void {
    // An API token is not a way into the account's own credentials.
    if (viewer.scopes) throw new AppError("forbidden", "Account settings need a signed-in browser session.");
  }

  async function currentToken(headers: Headers): Promise<string | null> {
    const s = await auth.api.getSession({ headers });
    return s?.session.token ?? null;
  }

  return {
    async get(viewer, headers) {
      browserOnly(viewer);
      const ctx = await auth.$context;
      const [current, sessions] = await Promise.all([currentToken(headers), ctx.internalAdapter.listSessions(viewer.userId)]);
      return {
        name: viewer.name,
        email: viewer.email,
        sessions: sessions
          .filter((s) => ms(s.expiresAt) > Date.now())
          .map((s) => ({
            id: s.id,
            createdAt: ms(s.createdAt),
            lastActiveAt: ms(s.updatedAt),
            userAgent: s.userAgent ?? null,
            ipAddress: s.ipAddress ?? null,
            current: s.token === current,
          }))
          .sort((a, b) => Number(b.current) - Number(a.current) || b.lastActiveAt - a.lastActiveAt),
      };
    },

    async rename(viewer, name) {
      browserOnly(viewer);
      const v = validate(nameSchema, name);
      const ctx = await auth.$context;
      await ctx.internalAdapter.updateUser(viewer.userId, { name: v });
    },

    async changePassword(viewer, headers, input) {
      browserOnly(viewer);
      const v = validate(z.object({ current: z.string().min(1).max(256), next: passwordSchema }), input);
      const ctx = await auth.$context;
      const account = (await ctx.internalAdapter.findAccounts(viewer.userId)).find((a) => a.providerId === "credential");
      const ok = account?.password ? await ctx.password.verify({ hash: account.password, password: v.current }) : false;
      if (!ok)
        throw new AppError("validation_failed", "The current password is not right.", {
          fields: [{ field: "current", rule: "match", message: "not your current password" }],
        });
      await ctx.internalAdapter.updatePassword(viewer.userId, await ctx.password.hash(v.next));
      const keep = await currentToken(headers);
      const others = (await ctx.internalAdapter.listSessions(viewer.userId)).filter((s) => s.token !== keep).map((s) => s.token);
      if (others.length > 0) await ctx.internalAdapter.deleteSessions(others);
    },

    async signOutEverywhere(viewer) {
      browserOnly(viewer);
      const ctx = await auth.$context;
      await ctx.internalAdapter.deleteUserSessions(viewer.userId);
    },
  };
}
