/**
 * SAML 2.0 settings of an organization (issue 42): owners configure the identity provider by its
 * metadata URL, by pasting its metadata XML, or by hand (entity id, sign-in URL, certificates —
 * two during a rollover), map the attributes (Okta's, Entra's and Google's names preset), choose
 * the role of newcomers and whether SSO is required. An organization uses SAML or OpenID Connect:
 * saving one removes the other. Admins read the settings. Every change goes to the audit log.
 */
import { createHash, X509Certificate } from "node:crypto";
import { z } from "zod";
import type { Config } from "../../config";
import { AppError } from "../../core/errors";
import { ATTRIBUTE_PRESETS, type AttributeMapping, type AttributePreset, DEFAULT_MAPPING } from "../../core/saml/attributes";
import { validate } from "../../core/validation";
import type { Logger } from "../../log";
import { addressAllowed, OutboundError, type OutboundPolicy, safeRequest } from "../../net/safe-request";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { deleteOrgSaml, findOrgSaml, findSamlTestResult, type OrgSamlRow, upsertOrgSaml } from "../../storage/identity/saml";
import { listMembers } from "../../storage/members/members";
import { deleteOrgSso, findOrgSso } from "../../storage/members/sso";
import { findOrgBySlug } from "../../storage/orgs/orgs";
import type { Action } from "../access/permissions";
import { type Auth, revokeUserSessions } from "../auth/auth";
import { createSecretBox, type SecretBox } from "../auth/secret-box";
import type { AuditLogServices } from "../identity/audit-log";
import type { OrgSummary, Viewer } from "../types";
import { certificatesFrom, type IdpMetadata, parseIdpMetadata } from "./idp-metadata";
import { makeSpKeyPair, type SpUrls, spUrls } from "./sp";

const ROLES = ["viewer", "member", "admin"] as const;

export interface CertificateView {
  fingerprint: string;
  subject: string;
  /** epoch ms */
  notAfter: number;
}

export interface SamlSettingsView {
  configured: boolean;
  /** OpenID Connect is set up instead (saving SAML replaces it) */
  oidcConfigured: boolean;
  sp: SpUrls & { certificate: string | null };
  idp: { entityId: string; ssoUrl: string; metadataUrl: string | null; certificates: CertificateView[] };
  mapping: AttributeMapping;
  presets: { id: AttributePreset; label: string; mapping: AttributeMapping }[];
  defaultRole: (typeof ROLES)[number];
  required: boolean;
  canEdit: boolean;
}

/** What the identity provider asserted during a test sign-in (shown to the owner who ran it). */
export interface SamlTestResult {
  nameId: string;
  nameIdFormat: string | null;
  issuer: string;
  email: string | null;
  name: string | null;
  groups: string[];
  attributes: Record<string, string[]>;
}

export interface SamlSettingsServices {
  settings(viewer: Viewer, orgSlug: string): Promise<SamlSettingsView>;
  configure(viewer: Viewer, orgSlug: string, input: unknown): Promise<SamlSettingsView & { signedOut: number }>;
  remove(viewer: Viewer, orgSlug: string): Promise<void>;
  /** The SP metadata XML (public: identity providers fetch it). */
  metadata(orgSlug: string): Promise<string>;
  testResult(viewer: Viewer, orgSlug: string, requestId: string): Promise<SamlTestResult | null>;
  /** The key that signs this organization's requests, opened. */
  spKeyOf(row: OrgSamlRow): Promise<string | null>;
}

const InputSchema = z.object({
  source: z.enum(["url", "xml", "manual"]).default("manual"),
  metadataUrl: z.string().trim().max(2000).default(""),
  metadataXml: z.string().max(200_000).default(""),
  idpEntityId: z.string().trim().max(500).default(""),
  idpSsoUrl: z.string().trim().max(2000).default(""),
  idpCerts: z.string().max(40_000).default(""),
  attrEmail: z.string().trim().min(1, "Name the email attribute.").max(300).default(DEFAULT_MAPPING.email),
  attrName: z.string().trim().max(300).default(DEFAULT_MAPPING.name),
  attrGroups: z.string().trim().max(300).default(DEFAULT_MAPPING.groups),
  defaultRole: z.enum(ROLES).default("member"),
  required: z.boolean().default(false),
});

export function createSamlSettings(deps: {
  db: Db;
  auth: Auth;
  config: Config;
  log: Logger;
  now: () => number;
  audit: AuditLogServices;
  authorize(viewer: Viewer, orgSlug: string, action: Action): Promise<OrgSummary>;
}): SamlSettingsServices {
  const { db, auth, config, log, now, audit } = deps;
  const policy: OutboundPolicy = {
    allowPrivate: config.sso.allowPrivate,
    allowHosts: config.sso.allowHosts,
    settings: { allowPrivate: "SSO_ALLOW_PRIVATE", allowHosts: "SSO_ALLOW_HOSTS" },
  };
  let box: Promise<SecretBox> | undefined;
  const keyBox = () => {
    box ??= auth.$context.then((ctx) => createSecretBox(ctx.secret, "saml-sp-key"));
    return box;
  };

  function certView(pem: string): CertificateView {
    const c = new X509Certificate(pem);
    return {
      fingerprint: createHash("sha256").update(c.raw).digest("hex").match(/.{2}/g)?.join(":").toUpperCase() ?? "",
      subject: c.subject.replace(/\n/g, ", "),
      notAfter: Date.parse(c.validTo),
    };
  }

  function view(org: OrgSummary, row: OrgSamlRow | undefined, oidc: boolean): SamlSettingsView {
    return {
      configured: row !== undefined,
      oidcConfigured: oidc,
      sp: { ...spUrls(config.publicUrl, org.slug), certificate: row?.spCert ?? null },
      idp: {
        entityId: row?.idpEntityId ?? "",
        ssoUrl: row?.idpSsoUrl ?? "",
        metadataUrl: row?.metadataUrl ?? null,
        certificates: (row?.idpCerts ?? []).map(certView),
      },
      mapping: row ? { email: row.attrEmail, name: row.attrName, groups: row.attrGroups } : DEFAULT_MAPPING,
      presets: Object.entries(ATTRIBUTE_PRESETS).map(([id, p]) => ({ id: id as AttributePreset, label: p.label, mapping: p.mapping })),
      defaultRole: (row?.defaultRole as SamlSettingsView["defaultRole"]) ?? "member",
      required: row?.required ?? false,
      canEdit: org.role === "owner",
    };
  }

  /** https, or http only where the installation allows private providers (tests, intranets). */
  function providerUrl(raw: string, field: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw AppError.field(field, "url", "Enter a URL, like https://idp.example.com/sso/saml.");
    }
    if (url.protocol === "https:") return url;
    const ok = url.protocol === "http:" && (policy.allowPrivate || addressAllowed(policy, url.hostname, url.hostname));
    if (!ok)
      throw AppError.field(
        field,
        "https",
        "Use https:// (http:// only for an allowed private address: SSO_ALLOW_PRIVATE or SSO_ALLOW_HOSTS).",
      );
    return url;
  }

  async function fetchMetadata(raw: string): Promise<string> {
    const url = providerUrl(raw, "metadataUrl");
    try {
      const res = await safeRequest(
        url.toString(),
        {
          method: "GET",
          headers: { accept: "application/samlmetadata+xml, application/xml, text/xml" },
          timeoutMs: 10_000,
          maxBodyBytes: 1024 * 1024,
          maxRedirects: 3,
        },
        policy,
      );
      if (res.status !== 200) throw AppError.field("metadataUrl", "fetch", `The metadata URL answered ${res.status}.`);
      return res.body.toString("utf8");
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (err instanceof OutboundError && err.code === "forbidden_address")
        throw AppError.field(
          "metadataUrl",
          "address",
          "The metadata URL is on a private or loopback address, which this installation does not allow (SSO_ALLOW_PRIVATE or SSO_ALLOW_HOSTS).",
        );
      throw AppError.field(
        "metadataUrl",
        "fetch",
        `The metadata could not be read (${err instanceof Error ? err.message.slice(0, 160) : "error"}).`,
      );
    }
  }

  async function idpFrom(input: z.infer<typeof InputSchema>, storedCerts: string[]): Promise<IdpMetadata & { metadataUrl: string | null }> {
    if (input.source === "url") {
      if (!input.metadataUrl) throw AppError.field("metadataUrl", "required", "Enter the identity provider's metadata URL.");
      return { ...parseIdpMetadata(await fetchMetadata(input.metadataUrl)), metadataUrl: input.metadataUrl };
    }
    if (input.source === "xml") {
      if (!input.metadataXml.trim()) throw AppError.field("metadataXml", "required", "Paste the identity provider's metadata XML.");
      return { ...parseIdpMetadata(input.metadataXml), metadataUrl: null };
    }
    if (!input.idpEntityId) throw AppError.field("idpEntityId", "required", "Enter the identity provider's entity id (issuer).");
    if (!input.idpSsoUrl) throw AppError.field("idpSsoUrl", "required", "Enter the identity provider's single sign-on URL.");
    // Blank keeps the stored certificates (the form never shows them again, only their fingerprints).
    const certs = input.idpCerts.trim() ? certificatesFrom(input.idpCerts, "idpCerts") : storedCerts;
    if (certs.length === 0) throw AppError.field("idpCerts", "required", "Paste the identity provider's signing certificate.");
    return { entityId: input.idpEntityId, ssoUrl: input.idpSsoUrl, certs, metadataUrl: null };
  }

  async function signOutNonOwners(orgId: number): Promise<number> {
    const affected = (await listMembers(db, orgId)).filter((m) => m.role !== "owner");
    for (const m of affected) await revokeUserSessions(auth, m.userId);
    return affected.length;
  }

  return {
    async settings(viewer, orgSlug) {
      const org = await deps.authorize(viewer, orgSlug, "sso.read");
      return view(org, await findOrgSaml(db, org.id), (await findOrgSso(db, org.id)) !== undefined);
    },

    async configure(viewer, orgSlug, raw) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      const input = validate(InputSchema, raw);
      const stored = await findOrgSaml(db, org.id);
      const idp = await idpFrom(input, stored?.idpCerts ?? []);
      providerUrl(idp.ssoUrl, input.source === "manual" ? "idpSsoUrl" : "metadataUrl");
      const keys = stored ? { cert: stored.spCert, keySealed: stored.spKeySealed } : null;
      const made = keys ? null : await makeSpKeyPair(`Errata ${org.slug}`, now());
      const row: OrgSamlRow = {
        orgId: org.id,
        idpEntityId: idp.entityId,
        idpSsoUrl: idp.ssoUrl,
        idpCerts: idp.certs,
        metadataUrl: idp.metadataUrl,
        spCert: keys?.cert ?? (made as { cert: string }).cert,
        spKeySealed: keys?.keySealed ?? (await keyBox()).seal((made as { key: string }).key),
        attrEmail: input.attrEmail,
        attrName: input.attrName,
        attrGroups: input.attrGroups,
        defaultRole: input.defaultRole,
        required: input.required,
        updatedAt: now(),
      };
      const hadOidc = (await findOrgSso(db, org.id)) !== undefined;
      await writeTx(db, async (tx) => {
        await upsertOrgSaml(tx, row);
        // One protocol per organization: SAML replaces OpenID Connect (linked identities stay).
        await deleteOrgSso(tx, org.id);
      });
      const signedOut = input.required && !stored?.required ? await signOutNonOwners(org.id) : 0;
      await audit.record({
        orgId: org.id,
        actorUserId: viewer.userId,
        actor: viewer.email,
        action: stored ? "sso.saml.update" : "sso.saml.enable",
        target: idp.entityId,
        details: { required: input.required, certificates: idp.certs.length, replacedOidc: hadOidc, signedOut },
      });
      log.info({ org: org.slug, idp: idp.entityId, required: input.required, signedOut }, "saml settings changed");
      return { ...view(org, row, false), signedOut };
    },

    async remove(viewer, orgSlug) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      const stored = await findOrgSaml(db, org.id);
      await writeTx(db, (tx) => deleteOrgSaml(tx, org.id));
      if (stored)
        await audit.record({
          orgId: org.id,
          actorUserId: viewer.userId,
          actor: viewer.email,
          action: "sso.saml.remove",
          target: stored.idpEntityId,
          details: null,
        });
    },

    async metadata(orgSlug) {
      const org = await findOrgBySlug(db, orgSlug);
      if (!org) throw new AppError("sso_not_configured");
      const row = await findOrgSaml(db, org.id);
      const urls = spUrls(config.publicUrl, org.slug);
      // node-saml lists the certificate (for signed requests and encrypted assertions) only beside its key.
      const key = row ? (await keyBox()).open(row.spKeySealed) : null;
      // Loaded on first use, as in sp.ts.
      const { generateServiceProviderMetadata } = await import("@node-saml/node-saml");
      return generateServiceProviderMetadata({
        issuer: urls.entityId,
        callbackUrl: urls.acsUrl,
        identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
        wantAssertionsSigned: true,
        ...(row && key ? { privateKey: key, publicCerts: [row.spCert], decryptionPvk: key, decryptionCert: row.spCert } : {}),
      });
    },

    async testResult(viewer, orgSlug, requestId) {
      const org = await deps.authorize(viewer, orgSlug, "sso.write");
      if (!/^[\w-]{10,100}$/.test(requestId)) return null;
      return ((await findSamlTestResult(db, org.id, requestId, viewer.userId, now())) as SamlTestResult | undefined) ?? null;
    },

    async spKeyOf(row) {
      return (await keyBox()).open(row.spKeySealed);
    },
  };
}
