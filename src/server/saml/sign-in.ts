/**
 * Signing in through SAML 2.0 (issue 42): SP-initiated (an AuthnRequest by the HTTP-Redirect
 * binding, answered by an HTTP-POST to the ACS) and IdP-initiated (an unsolicited POST).
 *
 * The ACS takes the response through, in order: our structural checks (response-checks.ts), the
 * InResponseTo of an SP-initiated answer (a request this organization sent, unanswered, unexpired),
 * node-saml's signature, audience and time validation, our checks on the verified assertion
 * (issuer, Recipient, bearer NotOnOrAfter), then — in one transaction — the request marked
 * answered and the assertion id recorded (a replay fails here), then provisioning. Every refusal
 * has its catalogue code and is written to the audit log with it.
 *
 * The ACS is reached by a cross-site POST, which carries no SameSite=Lax session cookie: who
 * started a sign-in (to link an existing account, or to see a test's result) is stored with the
 * request at the start, where the cookie is present.
 */
import { randomBytes } from "node:crypto";
import type { CacheProvider, Profile } from "@node-saml/node-saml";
import type { Config } from "../../config";
import { AppError, isAppError } from "../../core/errors";
import { personFromAssertion } from "../../core/saml/attributes";
import type { Logger } from "../../log";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import {
  findOpenSamlRequest,
  findOrgSaml,
  insertSamlRequest,
  markSamlRequestAnswered,
  type OrgSamlRow,
  recordAssertionOnce,
  type SamlRequestRow,
  saveSamlTestResult,
} from "../../storage/identity/saml";
import { findOrgBySlug, type OrgRow } from "../../storage/orgs/orgs";
import type { Action } from "../access/permissions";
import type { AuditLogServices } from "../identity/audit-log";
import type { IdentityProvisioning } from "../identity/provisioning";
import type { OrgSummary, Viewer } from "../types";
import { checkAssertion, codeForLibraryError, decodeResponse, precheckResponse } from "./response-checks";
import type { SamlSettingsServices, SamlTestResult } from "./settings";
import { SAML_CLOCK_SKEW_MS, SAML_REQUEST_TTL_MS, samlInstance, spUrls } from "./sp";

export interface SamlSignInServices {
  /** The identity provider's sign-in URL with an AuthnRequest, or null when the org has no SAML. */
  begin(orgSlug: string, next: string | null, current: Viewer | null): Promise<string | null>;
  /** An owner's test sign-in: the identity provider's URL; its answer is shown, nobody is signed in. */
  beginTest(viewer: Viewer, orgSlug: string): Promise<string>;
  /** Verifies a posted response; a sign-in's account to sign in, or a test's page to show. */
  acs(
    orgSlug: string,
    form: { SAMLResponse?: unknown; RelayState?: unknown },
    address: string | null,
  ): Promise<{ kind: "signin"; userId: string; next: string } | { kind: "test"; next: string }>;
}

function newRequestId(): string {
  // An xsd:ID must not start with a digit.
  return `_${randomBytes(20).toString("hex")}`;
}

/** A RelayState of an IdP-initiated sign-in, when it is a path on this site. */
function relayPath(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > 1000 || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/api/")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point.
  return /[\u0000-\u001f\u007f\\]/.test(raw) ? null : raw;
}

export function createSamlSignIn(deps: {
  db: Db;
  config: Config;
  log: Logger;
  now: () => number;
  settings: SamlSettingsServices;
  provisioning: IdentityProvisioning;
  audit: AuditLogServices;
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
}): SamlSignInServices {
  const { db, config, log, now, settings, provisioning, audit } = deps;

  async function orgWithSaml(orgSlug: string): Promise<{ org: OrgRow; row: OrgSamlRow } | null> {
    const org = await findOrgBySlug(db, orgSlug);
    const row = org ? await findOrgSaml(db, org.id) : undefined;
    return org && row ? { org, row } : null;
  }

  async function instance(org: OrgRow, row: OrgSamlRow, cacheProvider: CacheProvider) {
    return samlInstance({
      urls: spUrls(config.publicUrl, org.slug),
      idpSsoUrl: row.idpSsoUrl,
      idpCerts: row.idpCerts,
      spKey: await settings.spKeyOf(row),
      cacheProvider,
    });
  }

  async function verify(org: OrgRow, row: OrgSamlRow, form: { SAMLResponse?: unknown }) {
    const urls = spUrls(config.publicUrl, org.slug);
    const xml = decodeResponse(form.SAMLResponse);
    const facts = precheckResponse(xml, urls.acsUrl);
    let request: SamlRequestRow | undefined;
    if (facts.inResponseTo) {
      request = await findOpenSamlRequest(db, org.id, facts.inResponseTo, now());
      if (!request) throw new AppError("saml_unknown_request");
    }
    // node-saml asks its cache for the request InResponseTo names: the one found above, if any.
    const cache: CacheProvider = {
      saveAsync: async () => null,
      getAsync: async (key) => (request && key === request.id ? new Date(request.createdAt).toISOString() : null),
      removeAsync: async () => null,
    };
    let profile: Profile | null;
    try {
      profile = (await (await instance(org, row, cache)).validatePostResponseAsync({ SAMLResponse: String(form.SAMLResponse) })).profile;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      log.warn({ org: org.slug, reason: reason.slice(0, 300) }, "saml: response refused");
      throw new AppError(codeForLibraryError(reason));
    }
    if (!profile) throw new AppError("saml_malformed", "The response carries no assertion.");
    const assertion = checkAssertion(profile.getAssertionXml?.() ?? "", {
      acsUrl: urls.acsUrl,
      idpEntityId: row.idpEntityId,
      now: now(),
      skewMs: SAML_CLOCK_SKEW_MS,
    });
    return { profile, assertion, request };
  }

  async function start(orgSlug: string, next: string | null, current: Viewer | null, purpose: "signin" | "test"): Promise<string | null> {
    const found = await orgWithSaml(orgSlug);
    if (!found) return null;
    const { org, row } = found;
    let saved: SamlRequestRow | undefined;
    const cache: CacheProvider = {
      // node-saml makes the request id and hands it here: stored with who started and where to land.
      saveAsync: async (key) => {
        const at = now();
        saved = {
          id: key,
          orgId: org.id,
          purpose,
          userId: current?.userId ?? null,
          next: next ?? `/${org.slug}/issues`,
          createdAt: at,
          expiresAt: at + SAML_REQUEST_TTL_MS,
        };
        await writeTx(db, (tx) => insertSamlRequest(tx, saved as SamlRequestRow));
        return { value: new Date(at).toISOString(), createdAt: at };
      },
      getAsync: async () => null,
      removeAsync: async () => null,
    };
    const saml = await instance(org, row, cache);
    saml.options.generateUniqueId = newRequestId;
    const url = await saml.getAuthorizeUrlAsync("", undefined, {});
    if (!saved) throw new AppError("internal_error", "The sign-in request was not recorded.");
    return url;
  }

  return {
    begin: (orgSlug, next, current) => start(orgSlug, next, current, "signin"),

    async beginTest(viewer, orgSlug) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      const url = await start(org.slug, null, viewer, "test");
      if (!url) throw new AppError("sso_not_configured", "Save the SAML settings first, then test them.");
      return url;
    },

    async acs(orgSlug, form, address) {
      const found = await orgWithSaml(orgSlug);
      if (!found) throw new AppError("sso_not_configured");
      const { org, row } = found;
      // Refusals are audited once the response is the provider's own (its signature verified):
      // anything earlier could be anyone's POST, and must not fill the log.
      let verified = false;
      try {
        const { profile, assertion, request } = await verify(org, row, form);
        verified = true;
        const expires = assertion.notOnOrAfter ?? now() + 3600 * 1000;
        await writeTx(db, async (tx) => {
          if (request && !(await markSamlRequestAnswered(tx, request.id, now()))) throw new AppError("saml_unknown_request");
          if (!(await recordAssertionOnce(tx, org.id, assertion.id, expires + SAML_CLOCK_SKEW_MS, now())))
            throw new AppError("saml_replayed");
        });
        const attributes = (profile.attributes ?? {}) as Record<string, unknown>;
        const person = personFromAssertion(profile.nameID, attributes, {
          email: row.attrEmail,
          name: row.attrName,
          groups: row.attrGroups,
        });
        if (request?.purpose === "test") {
          const result: SamlTestResult = {
            nameId: profile.nameID,
            nameIdFormat: profile.nameIDFormat ?? null,
            issuer: profile.issuer,
            email: person.email,
            name: person.name,
            groups: person.groups,
            attributes: Object.fromEntries(
              Object.entries(attributes).map(([k, v]) => [
                k,
                (Array.isArray(v) ? v : [v]).map((x) => (typeof x === "string" ? x : JSON.stringify(x))),
              ]),
            ),
          };
          await writeTx(db, (tx) => saveSamlTestResult(tx, request.id, result));
          return { kind: "test", next: `/${org.slug}/settings/sso?saml_test=${encodeURIComponent(request.id)}#saml-test` };
        }
        if (!person.email) throw new AppError("saml_no_email");
        const attrGroupsSent = Object.hasOwn(attributes, row.attrGroups);
        const done = await provisioning.signIn(
          org,
          { issuer: row.idpEntityId, defaultRole: row.defaultRole },
          {
            subject: person.subject,
            email: person.email,
            name: person.name ?? person.email.split("@")[0] ?? person.email,
            groups: attrGroupsSent ? person.groups : null,
          },
          request?.userId ?? null,
        );
        await audit.record({
          orgId: org.id,
          actorUserId: done.userId,
          actor: person.email,
          action: "sso.signin",
          target: person.email,
          address,
          details: {
            protocol: "saml",
            flow: request ? "sp-initiated" : "idp-initiated",
            joined: done.joined,
            ...(done.mapping.teamsAdded.length || done.mapping.teamsRemoved.length
              ? { teamsAdded: done.mapping.teamsAdded, teamsRemoved: done.mapping.teamsRemoved }
              : {}),
            ...(done.mapping.role ? { role: done.mapping.role } : {}),
          },
        });
        return { kind: "signin", userId: done.userId, next: request?.next ?? relayPath(form.RelayState) ?? `/${org.slug}/issues` };
      } catch (err) {
        if (verified && isAppError(err))
          await audit.record({
            orgId: org.id,
            actorUserId: null,
            actor: "identity provider",
            action: "sso.signin.refused",
            target: err.code,
            address,
            details: null,
          });
        throw err;
      }
    },
  };
}
