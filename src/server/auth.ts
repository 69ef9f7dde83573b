/**
 * Better Auth on our own database (the shared Kysely instance): email + password, cookie sessions,
 * argon2id hashes. Public sign-up is off — accounts come from /setup, the CLI and (later)
 * invitations, which create them through `createUserWithPassword`.
 */
import { hash as argonHash, verify as argonVerify } from "@node-rs/argon2";
import { type BetterAuthOptions, betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import type { Config } from "../config";
import type { Db } from "../storage/db";

function authOptions(db: Db, config: Config, secret: string): BetterAuthOptions {
  return {
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
        // Throttled per account and per address on failures only (src/server/login-throttle.ts).
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
  };
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

export async function findUserByEmail(auth: Auth, email: string): Promise<{ id: string; email: string; name: string } | null> {
  const ctx = await auth.$context;
  const found = await ctx.internalAdapter.findUserByEmail(email.toLowerCase());
  return found ? { id: found.user.id, email: found.user.email, name: found.user.name } : null;
}

export async function setUserPassword(auth: Auth, userId: string, password: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.updatePassword(userId, await ctx.password.hash(password));
}

/** Ends every session of the user (password change or reset, removal from an organization). */
export async function revokeUserSessions(auth: Auth, userId: string): Promise<void> {
  const ctx = await auth.$context;
  await ctx.internalAdapter.deleteUserSessions(userId);
}
