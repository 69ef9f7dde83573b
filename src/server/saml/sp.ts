/**
 * This organization as a SAML service provider: its entity id and ACS URL (stable, from
 * PUBLIC_URL and the organization's slug), its signing key pair (made once per organization; the
 * private key sealed with the installation secret), and the node-saml instance built from the
 * saved identity provider.
 */
// Both load on first use (an SSO sign-in, a key made): ~7 MB of heap a server without SAML never
// needs (node-saml with xml-crypto, selfsigned with node-forge; measured 27 Nov in a fresh isolate).
import type { CacheProvider, SAML } from "@node-saml/node-saml";

/** How far the provider's clock may be from ours (NotBefore / NotOnOrAfter). */
export const SAML_CLOCK_SKEW_MS = 2 * 60 * 1000;
/** How long a started sign-in may take at the provider. */
export const SAML_REQUEST_TTL_MS = 10 * 60 * 1000;

export interface SpUrls {
  entityId: string;
  acsUrl: string;
  metadataUrl: string;
}

export function spUrls(publicUrl: string, orgSlug: string): SpUrls {
  const base = `${publicUrl}/api/sso/${encodeURIComponent(orgSlug)}/saml`;
  // The metadata URL doubles as the entity id: stable, unique per organization, and resolvable.
  return { entityId: `${base}/metadata`, acsUrl: `${base}/acs`, metadataUrl: `${base}/metadata` };
}

/** A fresh RSA key pair and a self-signed certificate for signing AuthnRequests (ten years). */
export async function makeSpKeyPair(commonName: string, now: number): Promise<{ cert: string; key: string }> {
  const notBeforeDate = new Date(now - 24 * 3600 * 1000);
  const notAfterDate = new Date(now + 10 * 365 * 24 * 3600 * 1000);
  const { generate } = await import("selfsigned");
  const pems = await generate([{ name: "commonName", value: commonName.slice(0, 64) }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate,
  });
  return { cert: pems.cert, key: pems.private };
}

export interface SamlInstanceInput {
  urls: SpUrls;
  idpSsoUrl: string;
  idpCerts: string[];
  spKey: string | null;
  cacheProvider: CacheProvider;
}

/**
 * node-saml configured as Errata requires: the response or its assertion signed (either; never
 * neither), the audience our entity id, a small clock skew, InResponseTo checked whenever a
 * response names one (IdP-initiated sign-ins name none), requests signed with our key.
 */
export async function samlInstance(i: SamlInstanceInput): Promise<SAML> {
  const { SAML, ValidateInResponseTo } = await import("@node-saml/node-saml");
  return new SAML({
    entryPoint: i.idpSsoUrl,
    issuer: i.urls.entityId,
    callbackUrl: i.urls.acsUrl,
    audience: i.urls.entityId,
    idpCert: i.idpCerts,
    wantAssertionsSigned: false,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: SAML_CLOCK_SKEW_MS,
    maxAssertionAgeMs: 0,
    validateInResponseTo: ValidateInResponseTo.ifPresent,
    requestIdExpirationPeriodMs: SAML_REQUEST_TTL_MS,
    cacheProvider: i.cacheProvider,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
    ...(i.spKey ? { privateKey: i.spKey, decryptionPvk: i.spKey } : {}),
  });
}
