/**
 * Better Auth on our own database (the shared Kysely instance): email + password, cookie sessions,
 * argon2id hashes. Public sign-up is off — accounts come from /setup, the CLI and (later)
 * invitations, which create them through `createUserWithPassword`.
 */
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import { type BetterAuthOptions, type BetterAuthPlugin, betterAuth } from "better-auth";
import { createAuthEndpoint } from "better-auth/api";
import { setSessionCookie } from "better-auth/cookies";
import { getMigrations } from "better-auth/db/migration";
import { z } from "zod";
import type { Config } from "../../config";
import type { Db } from "../../storage/db";

/**
 * Sessions for sign-ins Better Auth does not perform itself (SSO: src/server/auth/sso.ts). A
 * server-only endpoint, never on the HTTP router, so the session and its cookie are made exactly
 * as a password sign-in makes them (same signing, same attributes, same expiry).
 */
const errataSessions = {
  id: "errata-sessions",
  endpoints: {
    errataCreateSession: createAuthEndpoint.serverOnly({ method: "POST", body: z.object({ userId: z.string() }) }, async (ctx) => {
      const user = await ctx.context.internalAdapter.findUserById(ctx.body.userId);
      if (!user) throw new Error("errataCreateSession: no such user");
      const session = await ctx.context.internalAdapter.createSession(user.id);
      await setSessionCookie(ctx, { session, user });
      return ctx.json({ ok: true });
    }),
  },
} satisfies BetterAuthPlugin;

function authOptions(db: Db, config: Config, secret: string) {
  return {
    plugins: [errataSessions],
    appName: "Errata",
    baseURL: config.publicUrl,
    secret,
    database: { db: db.kysely, type: db.dialect },
    trustedOrigins: [config.publicUrl],
    emailAndPassword: {
      enabled: true,
      disableSignUp: true,
      minPasswordLength: 12,
      maxPasswordLength: 256,
      password: {
        hash: (password: string) => argonHash(password),
        verify: ({ hash, password }: { hash: string; password: string }) => argonVerify(hash, password),
      },
    },
    session: {
      // 30 days sliding (SPEC §9): refreshed once a day of use.
      expiresIn: config.auth.sessionDays * 24 * 3600,
      updateAge: 24 * 3600,
    },
    rateLimit: {
      enabled: true,
      window: 60,
      max: 300,
      customRules: {
        // Throttled per account and per address on failures only (src/server/auth/login-throttle.ts).
        "/sign-in/email": false,
      },
    },
    advanced: {
      skipTrailingSlashes: true,
      useSecureCookies: config.auth.secureCookies,
      // Only the socket address counts unless a proxy is configured; a client could forge the header.
      ipAddress: { ipAddressHeaders: ["x-errata-client-ip"] },
    },
    telemetry: { enabled: false },
  } satisfies BetterAuthOptions;
}

export function createAuth(db: Db, config: Config, secret: string) {
  return betterAuth(authOptions(db, config, secret));
}

export type Auth = ReturnType<typeof createAuth>;

/** Creates Better Auth's own tables (user, session, account, verification) when missing. */
export async function migrateAuth(db: Db, config: Config, secret: string): Promise<void> {
  const { runMigrations } = await getMigrations(authOptions(db, config, secret));
  await runMigrations();
}

/** Creates a user with a credential account, bypassing the disabled public sign-up. */
export async function createUserWithPassword(
  auth: Auth,
  input: { email: string; password: string; name: string },
): Promise<{ id: string }> {
  const ctx = await auth.$context;
  const hash = await ctx.password.hash(input.password);
  const user = await ctx.internalAdapter.createUser(
    { email: input.email.toLowerCase(), name: input.name, emailVerified: true },
    { method: "email-password" },
  );
  await ctx.internalAdapter.linkAccount({ userId: user.id, providerId: "credential", accountId: user.id, password: hash });
  return { id: user.id };
}

/** A user who signs in only through an identity provider (SSO): no password, so no password sign-in. */
export async function createUserWithoutPassword(auth: Auth, input: { email: string; name: string }): Promise<{ id: string }> {
  const ctx = await auth.$context;
  const user = await ctx.internalAdapter.createUser(
    { email: input.email.toLowerCase(), name: input.name, emailVerified: true },
    { method: "sso" },
  );
  return { id: user.id };
}

export async function findUserByEmail(auth: Auth, email: string): Promise<{ id: string; email: string; name: string } | null> {
  const ctx = await auth.$context;
  const found = await ctx.internalAdapter.findUserByEmail(email.toLowerCase());
  return found ? { id: found.user.id, email: found.user.email, name: found.user.name } : null;
}

export async function setUserPassword(auth: Auth, userId: string, password: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.updatePassword(userId, await ctx.password.hash(password));
}

/** Signs the user in: the Set-Cookie values of a new session, for a response we build ourselves. */
export async function createSessionCookies(auth: Auth, userId: string, headers: Headers): Promise<string[]> {
  const { headers: out } = await auth.api.errataCreateSession({ body: { userId }, headers, returnHeaders: true });
  return out.getSetCookie();
}

export async function findUserById(auth: Auth, id: string): Promise<{ id: string; email: string; name: string } | null> {
  const ctx = await auth.$context;
  const user = await ctx.internalAdapter.findUserById(id);
  return user ? { id: user.id, email: user.email, name: user.name } : null;
}

/** Sets the password; an account that had none (made through SSO) gets a password account. */
export async function setOrCreatePassword(auth: Auth, userId: string, password: string): Promise<void> {
  const ctx = await auth.$context;
  const hashed = await ctx.password.hash(password);
  const hasCredential = (await ctx.internalAdapter.findAccounts(userId)).some((a) => a.providerId === "credential");
  if (hasCredential) await ctx.internalAdapter.updatePassword(userId, hashed);
  else await ctx.internalAdapter.linkAccount({ userId, providerId: "credential", accountId: userId, password: hashed });
}

/** Ends one session by its token (a sign-in that must not stand). */
export async function revokeSessionToken(auth: Auth, token: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.deleteSession(token);
}

/** Ends every session of the user (password change or reset, removal from an organization). */
export async function revokeUserSessions(auth: Auth, userId: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.deleteUserSessions(userId);
}

/** Renames the account (a SCIM update of a person whose account SCIM created). */
export async function setUserName(auth: Auth, userId: string, name: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.updateUser(userId, { name });
}
