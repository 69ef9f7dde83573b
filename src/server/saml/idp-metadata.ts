/**
 * An identity provider's SAML metadata (its EntityDescriptor), as pasted or fetched from its
 * metadata URL: the entity id, the single sign-on URL (HTTP-Redirect binding preferred, else
 * HTTP-POST) and the signing certificates (two during a rollover). Only read, never trusted for
 * security beyond what the owner saved: the certificates it yields are what later signatures must
 * verify with.
 */
import { X509Certificate } from "node:crypto";
import { DOMParser } from "@xmldom/xmldom";
import { AppError } from "../../core/errors";

const MD_NS = "urn:oasis:names:tc:SAML:2.0:metadata";
const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";
const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
const POST = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST";

export interface IdpMetadata {
  entityId: string;
  ssoUrl: string;
  certs: string[];
}

interface XElement {
  localName: string | null;
  namespaceURI: string | null;
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(ns: string, local: string): ArrayLike<XElement>;
  textContent: string | null;
  parentNode: XElement | null;
}

function list(e: XElement, ns: string, local: string): XElement[] {
  return Array.from(e.getElementsByTagNameNS(ns, local));
}

/** A certificate as PEM, or `validation_failed` on `field` when it is not an X.509 certificate. */
export function certificatePem(raw: string, field: string): string {
  const body = raw
    .replace(/-----(BEGIN|END) CERTIFICATE-----/g, "")
    .replace(/\s+/g, "")
    .trim();
  const pem = `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join("\n") ?? ""}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw AppError.field(field, "certificate", "Paste the identity provider's signing certificate (PEM or base64 X.509).");
  }
  return pem;
}

/** Several certificates pasted together (a rollover): each PEM block, or one bare base64 body. */
export function certificatesFrom(raw: string, field: string): string[] {
  const blocks = raw.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g);
  const parts = blocks ?? (raw.trim() ? [raw] : []);
  return [...new Set(parts.map((p) => certificatePem(p, field)))];
}

export function parseIdpMetadata(xml: string): IdpMetadata {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw AppError.field("metadataXml", "xml", "Metadata with a document type declaration is refused.");
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: { warning: () => {}, error: (m: string) => void errors.push(m), fatalError: (m: string) => void errors.push(m) },
  }).parseFromString(xml, "text/xml") as unknown as { documentElement: XElement | null };
  const root = doc.documentElement;
  if (errors.length || !root) throw AppError.field("metadataXml", "xml", "The metadata is not well-formed XML.");
  const descriptor = root.localName === "EntityDescriptor" && root.namespaceURI === MD_NS ? root : list(root, MD_NS, "EntityDescriptor")[0];
  const idp = descriptor ? list(descriptor, MD_NS, "IDPSSODescriptor")[0] : undefined;
  const entityId = descriptor?.getAttribute("entityID")?.trim();
  if (!descriptor || !idp || !entityId)
    throw AppError.field(
      "metadataXml",
      "xml",
      "The metadata has no EntityDescriptor with an IDPSSODescriptor (is it the identity provider's?).",
    );
  const services = list(idp, MD_NS, "SingleSignOnService");
  const sso = services.find((s) => s.getAttribute("Binding") === REDIRECT) ?? services.find((s) => s.getAttribute("Binding") === POST);
  const ssoUrl = sso?.getAttribute("Location")?.trim();
  if (!ssoUrl)
    throw AppError.field("metadataXml", "xml", "The metadata names no single sign-on URL with the HTTP-Redirect or HTTP-POST binding.");
  const keys = list(idp, MD_NS, "KeyDescriptor").filter((k) => {
    const use = k.getAttribute("use");
    return !use || use === "signing";
  });
  const certs = [
    ...new Set(keys.flatMap((k) => list(k, DSIG_NS, "X509Certificate").map((c) => certificatePem(c.textContent ?? "", "metadataXml")))),
  ];
  if (certs.length === 0) throw AppError.field("metadataXml", "xml", "The metadata carries no signing certificate.");
  return { entityId, ssoUrl, certs };
}
