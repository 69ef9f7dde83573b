/**
 * Single sign-on with a generic OpenID Connect provider per organization (issue 9): owners set the
 * issuer, client id and secret, the role new people get and whether SSO is required; anyone then
 * signs in through the provider (authorization code flow with PKCE, state and nonce), and people
 * the provider vouches for are provisioned into the organization on their first sign-in.
 *
 * Accounts are keyed by the provider's subject, never by the email alone: a provider vouching
 * for an email that already has an Errata account only links to it when that account is the one
 * signed in (as Sentry asks), or an owner of one organization could configure a provider that
 * asserts any email and walk into accounts of other organizations.
 */
import * as oidc from "openid-client";
import { z } from "zod";
import type { Config } from "../../config";
import { AppError } from "../../core/errors";
import { emailSchema, validate } from "../../core/validation";
import type { Logger } from "../../log";
import { guardedFetch } from "../../net/guarded-fetch";
import { addressAllowed, OutboundError, type OutboundPolicy } from "../../net/safe-request";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { deleteOrgSaml, findOrgSaml, samlLinksOfUser, samlRequiredMemberships } from "../../storage/identity/saml";
import { listMembers } from "../../storage/members/members";
import { deleteOrgSso, findOrgSso, type OrgSsoRow, ssoLinksOfUser, ssoRequiredMemberships, upsertOrgSso } from "../../storage/members/sso";
import { findOrgBySlug, type OrgRow } from "../../storage/orgs/orgs";
import { requirePermission } from "../access/access";
import type { AuditLogServices } from "../identity/audit-log";
import type { IdentityProvisioning } from "../identity/provisioning";
import type { OrgSummary, Viewer } from "../types";
import { type Auth, findUserByEmail, revokeUserSessions } from "./auth";
import { createSecretBox, type SecretBox } from "./secret-box";

/** How long a started sign-in may take at the provider before its state is refused. */
const STATE_TTL_MS = 10 * 60 * 1000;
/** Discovery documents are kept this long per organization (keys rotate; settings may change). */
const DISCOVERY_TTL_MS = 10 * 60 * 1000;
const SSO_ROLES = ["viewer", "member", "admin"] as const;

export const SSO_STATE_COOKIE = "errata_sso_state";

export interface SsoSettingsView {
  configured: boolean;
  issuer: string;
  clientId: string;
  /** A secret is stored (it is never shown again). */
  secretSet: boolean;
  defaultRole: (typeof SSO_ROLES)[number];
  required: boolean;
  /** What to register at the provider as the redirect (callback) URI. */
  redirectUri: string;
  /** Owners change these settings; admins read them. */
  canEdit: boolean;
}

export interface SsoBegin {
  /** The provider's authorization URL to send the browser to. */
  location: string;
  /** The sealed state for the SSO_STATE_COOKIE (short-lived, HttpOnly). */
  stateCookie: string;
}

export interface SsoServices {
  settings(viewer: Viewer, orgSlug: string): Promise<SsoSettingsView>;
  /**
   * Saves the settings after checking the provider answers its discovery document. Switching
   * "Require SSO" on signs out every member but the owners (`signedOut` of them).
   */
  configure(viewer: Viewer, orgSlug: string, input: unknown): Promise<SsoSettingsView & { signedOut: number }>;
  remove(viewer: Viewer, orgSlug: string): Promise<void>;
  begin(orgSlug: string, next: string | null): Promise<SsoBegin>;
  /** Verifies the provider's answer and provisions; the caller signs `userId` in. */
  complete(
    orgSlug: string,
    search: string,
    /** the request's Cookie header, which carries the sealed state of the sign-in */
    cookieHeader: string | null,
    current: Viewer | null,
  ): Promise<{ userId: string; next: string }>;
  /** The viewer's organizations with SSO, linked or not (the account page offers to link). */
  accountLinks(viewer: Viewer): Promise<{ slug: string; name: string; linked: boolean }[]>;
  /** Why a password sign-in of this account must be refused (an org requiring SSO), or null. */
  passwordSignInRefusal(email: string): Promise<AppError | null>;
  redirectUri(orgSlug: string): string;
  /** The Set-Cookie header carrying (or, with null, clearing) a sign-in's sealed state. */
  stateCookieHeader(value: string | null): string;
}

const SettingsSchema = z.object({
  issuer: z.string().trim().min(1, "Enter the issuer URL.").max(500),
  clientId: z.string().trim().min(1, "Enter the client id.").max(500),
  /** Empty keeps the stored secret. */
  clientSecret: z.string().max(2000).optional().default(""),
  defaultRole: z.enum(SSO_ROLES).default("member"),
  required: z.boolean().default(false),
});

const StateSchema = z.object({
  org: z.string(),
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  next: z.string(),
  exp: z.number(),
});

export function createSsoServices(deps: {
  db: Db;
  auth: Auth;
  config: Config;
  log: Logger;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  /** SSO provisioning and group → team mapping, shared with SAML (src/server/identity/provisioning.ts) */
  provisioning: IdentityProvisioning;
  audit: AuditLogServices;
}): SsoServices {
  const { db, auth, config, log, now, membershipOrThrow, provisioning, audit } = deps;
  const policy: OutboundPolicy = {
    allowPrivate: config.sso.allowPrivate,
    allowHosts: config.sso.allowHosts,
    settings: { allowPrivate: "SSO_ALLOW_PRIVATE", allowHosts: "SSO_ALLOW_HOSTS" },
  };
  const fetchGuarded = guardedFetch(policy, { timeoutMs: 10_000, maxBodyBytes: 1024 * 1024 });
  const discovered = new Map<number, { key: string; at: number; config: oidc.Configuration }>();
  let boxes: Promise<{ secret: SecretBox; state: SecretBox }> | undefined;

  // The installation secret lives in Better Auth's context; one key per purpose.
  function secretBoxes() {
    boxes ??= auth.$context.then((ctx) => ({
      secret: createSecretBox(ctx.secret, "sso-client-secret"),
      state: createSecretBox(ctx.secret, "sso-login-state"),
    }));
    return boxes;
  }

  function redirectUri(orgSlug: string): string {
    return `${config.publicUrl}/api/sso/${encodeURIComponent(orgSlug)}/callback`;
  }

  function view(org: OrgSummary, row: OrgSsoRow | undefined): SsoSettingsView {
    return {
      configured: row !== undefined,
      issuer: row?.issuer ?? "",
      clientId: row?.clientId ?? "",
      secretSet: row !== undefined,
      defaultRole: (row?.defaultRole as SsoSettingsView["defaultRole"]) ?? "member",
      required: row?.required ?? false,
      redirectUri: redirectUri(org.slug),
      canEdit: org.role === "owner",
    };
  }

  async function readable(viewer: Viewer, orgSlug: string): Promise<OrgSummary> {
    const org = await membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "sso.read");
    return org;
  }

  async function editable(viewer: Viewer, orgSlug: string): Promise<OrgSummary> {
    const org = await membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, "sso.write");
    return org;
  }

  /** The issuer as a URL we may call: https, or http only where private addresses are allowed. */
  function issuerUrl(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw AppError.field("issuer", "url", "Enter the issuer as a URL, like https://accounts.google.com.");
    }
    if (url.protocol === "https:") return url;
    const privateOk = url.protocol === "http:" && (policy.allowPrivate || addressAllowed(policy, url.hostname, url.hostname));
    if (!privateOk) throw AppError.field("issuer", "https", "The issuer must use https:// (http:// only for an allowed private address).");
    return url;
  }

  async function discover(
    orgId: number,
    issuer: string,
    clientId: string,
    clientSecret: string,
    updatedAt: number,
  ): Promise<oidc.Configuration> {
    const key = `${issuer}\n${clientId}\n${updatedAt}`;
    const hit = discovered.get(orgId);
    if (hit && hit.key === key && now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
    const url = issuerUrl(issuer);
    const options: oidc.DiscoveryRequestOptions = {
      [oidc.customFetch]: fetchGuarded,
      ...(url.protocol === "http:" ? { execute: [oidc.allowInsecureRequests] } : {}),
    };
    let cfg: oidc.Configuration;
    try {
      cfg = await oidc.discovery(url, clientId, clientSecret, oidc.ClientSecretPost(clientSecret), options);
    } catch (err) {
      throw providerError(err);
    }
    cfg[oidc.customFetch] = fetchGuarded;
    discovered.set(orgId, { key, at: now(), config: cfg });
    return cfg;
  }

  function providerError(err: unknown): AppError {
    if (err instanceof AppError) return err;
    if (err instanceof OutboundError && err.code === "forbidden_address")
      return new AppError(
        "sso_provider_unreachable",
        "The identity provider is on a private or loopback address, which this installation does not allow (SSO_ALLOW_PRIVATE or SSO_ALLOW_HOSTS).",
      );
    const reason = err instanceof Error ? err.message : String(err);
    log.warn({ reason }, "sso: the identity provider could not be used");
    return new AppError(
      "sso_provider_unreachable",
      `The identity provider's discovery document could not be read (${reason.slice(0, 200)}).`,
    );
  }

  async function orgWithSso(orgSlug: string): Promise<{ org: OrgRow; row: OrgSsoRow; clientSecret: string }> {
    const org = await findOrgBySlug(db, orgSlug);
    const row = org ? await findOrgSso(db, org.id) : undefined;
    // The same answer for "no such organization" and "no SSO": nothing to learn about tenants.
    if (!org || !row) throw new AppError("sso_not_configured");
    const clientSecret = (await secretBoxes()).secret.open(row.clientSecretSealed);
    if (clientSecret === null)
      throw new AppError(
        "sso_provider_unreachable",
        "The stored client secret cannot be read (was the installation secret changed?). Enter it again.",
      );
    return { org, row, clientSecret };
  }

  /** Name and email of the person, from the ID token or else the userinfo endpoint. */
  async function personOf(cfg: oidc.Configuration, tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers) {
    const claims = tokens.claims();
    if (!claims) throw new AppError("sso_failed", "The provider sent no ID token.");
    let info: Record<string, unknown> = claims;
    if (typeof claims.email !== "string") info = { ...(await oidc.fetchUserInfo(cfg, tokens.access_token, claims.sub)), ...claims };
    if (typeof info.email !== "string")
      throw new AppError("sso_failed", "The provider did not share an email address (request the email scope and claim).");
    // Only an explicit "not verified" is refused: Microsoft Entra, for one, sends no such claim.
    if (info.email_verified === false) throw new AppError("sso_failed", "The provider says this email address is not verified.");
    const email = validate(emailSchema, info.email).toLowerCase();
    const name = typeof info.name === "string" && info.name.trim() ? info.name.trim().slice(0, 128) : email.split("@")[0] || email;
    // The groups claim (Okta, Keycloak, Authentik, Entra send `groups` when asked): mapped to teams.
    const groups = Array.isArray(info.groups) ? info.groups.filter((g): g is string => typeof g === "string").slice(0, 500) : null;
    return { subject: claims.sub, email, name, groups };
  }

  async function signOutNonOwners(orgId: number): Promise<number> {
    const affected = (await listMembers(db, orgId)).filter((m) => m.role !== "owner");
    for (const m of affected) await revokeUserSessions(auth, m.userId);
    return affected.length;
  }

  return {
    redirectUri,

    stateCookieHeader(value) {
      // Lax: the provider sends the browser back with a top-level GET, which must carry it.
      const attrs = [`Path=/api/sso/`, "HttpOnly", "SameSite=Lax", ...(config.auth.secureCookies ? ["Secure"] : [])];
      return value === null
        ? `${SSO_STATE_COOKIE}=; Max-Age=0; ${attrs.join("; ")}`
        : `${SSO_STATE_COOKIE}=${value}; Max-Age=${STATE_TTL_MS / 1000}; ${attrs.join("; ")}`;
    },

    async settings(viewer, orgSlug) {
      const org = await readable(viewer, orgSlug);
      return view(org, await findOrgSso(db, org.id));
    },

    async configure(viewer, orgSlug, raw) {
      const org = await editable(viewer, orgSlug);
      const input = validate(SettingsSchema, raw);
      const issuer = issuerUrl(input.issuer).toString().replace(/\/$/, "");
      const stored = await findOrgSso(db, org.id);
      const box = (await secretBoxes()).secret;
      const secret = input.clientSecret || (stored ? box.open(stored.clientSecretSealed) : null);
      if (!secret) throw AppError.field("clientSecret", "required", "Enter the client secret.");
      // A typo in the issuer shows here, not when the first person tries to sign in.
      const updatedAt = now();
      await discover(org.id, issuer, input.clientId, secret, updatedAt);
      const row: OrgSsoRow = {
        orgId: org.id,
        issuer,
        clientId: input.clientId,
        clientSecretSealed: box.seal(secret),
        defaultRole: input.defaultRole,
        required: input.required,
        updatedAt,
      };
      const hadSaml = (await findOrgSaml(db, org.id)) !== undefined;
      await writeTx(db, async (tx) => {
        await upsertOrgSso(tx, row);
        // One protocol per organization: OpenID Connect replaces SAML.
        await deleteOrgSaml(tx, org.id);
      });
      // Turning "Require SSO" on ends the sessions of everyone it now applies to: a password
      // session (or one of someone the provider has since disabled) must not outlive the switch.
      const signedOut = input.required && !stored?.required ? await signOutNonOwners(org.id) : 0;
      log.info({ org: org.slug, issuer, required: input.required, signedOut }, "sso settings changed");
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: stored ? "sso.oidc.update" : "sso.oidc.enable",
        target: issuer,
        details: { required: input.required, replacedSaml: hadSaml, signedOut },
      });
      return { ...view(org, row), signedOut };
    },

    async remove(viewer, orgSlug) {
      const org = await editable(viewer, orgSlug);
      await writeTx(db, (tx) => deleteOrgSso(tx, org.id));
      discovered.delete(org.id);
      log.info({ org: org.slug }, "sso removed");
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: "sso.oidc.remove",
        target: org.slug,
        details: null,
      });
    },

    async begin(orgSlug, next) {
      const { org, row, clientSecret } = await orgWithSso(orgSlug);
      const cfg = await discover(org.id, row.issuer, row.clientId, clientSecret, row.updatedAt);
      const verifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const location = oidc.buildAuthorizationUrl(cfg, {
        redirect_uri: redirectUri(org.slug),
        scope: "openid email profile",
        response_type: "code",
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      const payload = { org: org.slug, state, nonce, verifier, next: next ?? `/${org.slug}/issues`, exp: now() + STATE_TTL_MS };
      return { location: location.toString(), stateCookie: (await secretBoxes()).state.seal(JSON.stringify(payload)) };
    },

    async complete(orgSlug, search, cookieHeader, current) {
      const stateCookie = cookieValue(cookieHeader, SSO_STATE_COOKIE);
      const opened = stateCookie ? (await secretBoxes()).state.open(stateCookie) : null;
      const parsed = opened ? StateSchema.safeParse(JSON.parse(opened)) : undefined;
      const st = parsed?.success ? parsed.data : undefined;
      if (!st || st.org !== orgSlug || st.exp < now())
        throw new AppError("sso_failed", "The sign-in took too long or was started in another browser. Start again.");
      const { org, row, clientSecret } = await orgWithSso(orgSlug);
      const cfg = await discover(org.id, row.issuer, row.clientId, clientSecret, row.updatedAt);
      const params = new URLSearchParams(search);
      const providerError = params.get("error");
      if (providerError) throw new AppError("sso_failed", `The provider refused the sign-in (${providerError.slice(0, 100)}).`);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(cfg, new URL(`${redirectUri(org.slug)}?${params}`), {
          pkceCodeVerifier: st.verifier,
          expectedState: st.state,
          expectedNonce: st.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        log.warn({ org: org.slug, reason: err instanceof Error ? err.message : String(err) }, "sso: the provider's answer was refused");
        throw new AppError("sso_failed");
      }
      const person = await personOf(cfg, tokens);
      const done = await provisioning.signIn(org, { issuer: row.issuer, defaultRole: row.defaultRole }, person, current?.userId ?? null);
      log.info({ org: org.slug, userId: done.userId }, "sso sign-in");
      await audit.record({
        orgId: org.id,
        actorUserId: done.userId,
        actor: person.email,
        action: "sso.signin",
        target: person.email,
        details: { protocol: "oidc", joined: done.joined, ...(done.mapping.role ? { role: done.mapping.role } : {}) },
      });
      return { userId: done.userId, next: st.next };
    },

    async accountLinks(viewer) {
      if (viewer.scopes) throw new AppError("forbidden", "Single sign-on links are managed in the browser.");
      // OpenID Connect's and SAML's organizations (one protocol each), by slug.
      const links = [...(await ssoLinksOfUser(db, viewer.userId)), ...(await samlLinksOfUser(db, viewer.userId))];
      return links.sort((a, b) => a.slug.localeCompare(b.slug));
    },

    async passwordSignInRefusal(email) {
      const user = await findUserByEmail(auth, email);
      if (!user) return null;
      // Owners keep their password: a broken provider must not lock everyone out of the settings.
      const required = [...(await ssoRequiredMemberships(db, user.id)), ...(await samlRequiredMemberships(db, user.id))];
      const org = required.find((m) => m.role !== "owner");
      if (!org) return null;
      return new AppError("sso_required", `${org.name} requires single sign-on: choose “Sign in with SSO” and enter ${org.slug}.`);
    },
  };
}

/** One cookie's value from a Cookie header (the sealed state is base64url and dots: no decoding). */
function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of header?.split(";") ?? []) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}
