/**
 * Checks on an identity provider's SAML response that come before and after the signature
 * validation of @node-saml/node-saml (which does the XML security: signatures, digests, the
 * assertion it returns is the signed one). Ours are structural and refuse what a well-behaved
 * provider never sends, so each attack fails early with its own catalogue code:
 *
 *  - document type declarations and entities (XXE, entity expansion): `saml_malformed`;
 *  - comments anywhere (the NameID comment-truncation family): `saml_malformed`;
 *  - more than one assertion, a Response inside the Response, duplicate ids, or a signature that
 *    signs another element than its parent (signature wrapping): `saml_wrapped`;
 *  - no signature at all: `saml_unsigned`;
 *  - a Destination other than our ACS URL: `saml_wrong_recipient`.
 *
 * After validation: the Recipient and the bearer confirmation's NotOnOrAfter of the verified
 * assertion, and its issuer. `codeForLibraryError` names node-saml's refusals.
 */
import { DOMParser } from "@xmldom/xmldom";
import { AppError, type ErrorCode } from "../../core/errors";

const PROTOCOL_NS = "urn:oasis:names:tc:SAML:2.0:protocol";
const ASSERTION_NS = "urn:oasis:names:tc:SAML:2.0:assertion";
const DSIG_NS = "http://www.w3.org/2000/09/xmldsig#";
/** A SAML response is a few KB; 256 KB of base64 leaves room for many groups and certificates. */
export const MAX_RESPONSE_BASE64 = 256 * 1024;

const COMMENT_NODE = 8;
const ELEMENT_NODE = 1;

// The DOM types of @xmldom/xmldom, narrowed to what these checks read.
interface XNode {
  nodeType: number;
  childNodes: ArrayLike<XNode> | null;
  parentNode: XNode | null;
  localName?: string | null;
  namespaceURI?: string | null;
  getAttribute?(name: string): string | null;
  hasAttribute?(name: string): boolean;
  textContent?: string | null;
}

function refuse(code: ErrorCode, detail?: string): AppError {
  return new AppError(code, detail);
}

function walk(node: XNode, visit: (n: XNode) => void): void {
  visit(node);
  const kids = node.childNodes;
  if (!kids) return; // text, comment and attribute nodes have none
  for (let i = 0; i < kids.length; i++) walk(kids[i] as XNode, visit);
}

function elements(root: XNode, ns: string, local: string): XNode[] {
  const out: XNode[] = [];
  walk(root, (n) => {
    if (n.nodeType === ELEMENT_NODE && n.localName === local && n.namespaceURI === ns) out.push(n);
  });
  return out;
}

/** The XML of a posted SAMLResponse, or `saml_malformed`. */
export function decodeResponse(base64: unknown): string {
  if (typeof base64 !== "string" || base64.length === 0) throw refuse("saml_malformed", "The request carries no SAMLResponse.");
  if (base64.length > MAX_RESPONSE_BASE64) throw refuse("saml_malformed", "The SAMLResponse is larger than 256 KB.");
  const compact = base64.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) throw refuse("saml_malformed", "The SAMLResponse is not base64.");
  return Buffer.from(compact, "base64").toString("utf8");
}

export interface ResponseFacts {
  /** the Response's InResponseTo attribute, when it answers a request */
  inResponseTo: string | null;
}

/** Structural checks of the response XML before any signature is looked at. */
export function precheckResponse(xml: string, acsUrl: string): ResponseFacts {
  // A DTD has no place in SAML (its schema forbids it); refusing it before parsing closes XXE and
  // entity expansion whatever the parser would do with it.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw refuse("saml_malformed", "Document type declarations and entities are refused.");
  let doc: XNode;
  try {
    const errors: string[] = [];
    const parsed = new DOMParser({
      errorHandler: { warning: () => {}, error: (m: string) => void errors.push(m), fatalError: (m: string) => void errors.push(m) },
    }).parseFromString(xml, "text/xml") as unknown as { documentElement: XNode | null } & XNode;
    if (errors.length || !parsed.documentElement) throw new Error(errors[0] ?? "no document element");
    doc = parsed;
  } catch {
    throw refuse("saml_malformed", "The SAMLResponse is not well-formed XML.");
  }
  const root = (doc as unknown as { documentElement: XNode }).documentElement;
  if (root.localName !== "Response" || root.namespaceURI !== PROTOCOL_NS)
    throw refuse("saml_malformed", "The document is not a SAML 2.0 Response.");

  const ids = new Set<string>();
  walk(doc, (n) => {
    if (n.nodeType === COMMENT_NODE)
      throw refuse("saml_malformed", "Comments are refused in a SAML response (they can truncate a signed NameID).");
    if (n.nodeType !== ELEMENT_NODE) return;
    const id = n.getAttribute?.("ID");
    if (id) {
      if (ids.has(id)) throw refuse("saml_wrapped", "Two elements carry the same ID.");
      ids.add(id);
    }
  });
  if (elements(root, PROTOCOL_NS, "Response").length !== 1) throw refuse("saml_wrapped", "A Response is nested in the Response.");
  const assertions = elements(root, ASSERTION_NS, "Assertion").length + elements(root, ASSERTION_NS, "EncryptedAssertion").length;
  if (assertions > 1) throw refuse("saml_wrapped", "The response holds more than one assertion.");

  const signatures = elements(root, DSIG_NS, "Signature");
  if (signatures.length === 0) throw refuse("saml_unsigned");
  for (const sig of signatures) {
    // An enveloped signature signs its parent: its one Reference names the parent's ID. Anything
    // else is a signature moved around the document to vouch for content it never signed.
    const parent = sig.parentNode;
    const refs = elements(sig, DSIG_NS, "Reference");
    const parentId = parent?.getAttribute?.("ID");
    if (!parentId || refs.length !== 1 || refs[0]?.getAttribute?.("URI") !== `#${parentId}`)
      throw refuse("saml_wrapped", "A signature signs another element than the one it sits in.");
    const parentIsOurs =
      (parent?.localName === "Response" && parent.namespaceURI === PROTOCOL_NS) ||
      (parent?.localName === "Assertion" && parent.namespaceURI === ASSERTION_NS);
    if (!parentIsOurs) throw refuse("saml_wrapped", "A signature sits outside the Response and its assertion.");
  }

  const destination = root.getAttribute?.("Destination");
  if (destination && destination !== acsUrl)
    throw refuse("saml_wrong_recipient", `The response is addressed to ${destination.slice(0, 200)}.`);
  const inResponseTo = root.getAttribute?.("InResponseTo") || null;
  return { inResponseTo };
}

export interface AssertionFacts {
  id: string;
  /** when the assertion stops being valid (what its id must be remembered until) */
  notOnOrAfter: number | null;
}

/**
 * Checks on the verified assertion (the XML node-saml returns is the signed one): its issuer,
 * the bearer confirmation's Recipient (our ACS URL) and NotOnOrAfter (with the allowed skew).
 */
export function checkAssertion(
  assertionXml: string,
  expect: { acsUrl: string; idpEntityId: string; now: number; skewMs: number },
): AssertionFacts {
  const doc = new DOMParser().parseFromString(assertionXml, "text/xml") as unknown as { documentElement: XNode };
  const a = doc.documentElement;
  const id = a.getAttribute?.("ID");
  if (!id) throw refuse("saml_malformed", "The assertion has no ID.");
  const issuer = elements(a, ASSERTION_NS, "Issuer")
    .find((n) => n.parentNode === a)
    ?.textContent?.trim();
  if (issuer !== expect.idpEntityId) throw refuse("saml_wrong_issuer", `The assertion was issued by ${String(issuer).slice(0, 200)}.`);
  const confirmations = elements(a, ASSERTION_NS, "SubjectConfirmation").filter(
    (c) => c.getAttribute?.("Method") === "urn:oasis:names:tc:SAML:2.0:cm:bearer",
  );
  if (confirmations.length === 0) throw refuse("saml_malformed", "The assertion has no bearer subject confirmation.");
  let latest: number | null = null;
  for (const c of confirmations) {
    const data = elements(c, ASSERTION_NS, "SubjectConfirmationData")[0];
    const recipient = data?.getAttribute?.("Recipient");
    if (recipient !== expect.acsUrl)
      throw refuse("saml_wrong_recipient", `The assertion's Recipient is ${String(recipient).slice(0, 200)}.`);
    const until = Date.parse(data?.getAttribute?.("NotOnOrAfter") ?? "");
    if (!Number.isFinite(until)) throw refuse("saml_malformed", "The bearer confirmation has no NotOnOrAfter.");
    if (expect.now - expect.skewMs >= until) throw refuse("saml_expired");
    latest = Math.max(latest ?? 0, until);
  }
  const conditions = elements(a, ASSERTION_NS, "Conditions")[0];
  const condUntil = Date.parse(conditions?.getAttribute?.("NotOnOrAfter") ?? "");
  const notOnOrAfter = Number.isFinite(condUntil) ? Math.max(latest ?? 0, condUntil) : latest;
  return { id, notOnOrAfter };
}

/** The catalogue code for a refusal by node-saml (its errors are plain messages). */
export function codeForLibraryError(message: string): ErrorCode {
  if (/multiple assertions|Cannot obtain assertion from signed data/i.test(message)) return "saml_wrapped";
  if (/signature/i.test(message)) return "saml_signature_invalid";
  if (/audience/i.test(message)) return "saml_wrong_audience";
  if (/expired|not yet valid|No valid subject confirmation/i.test(message)) return "saml_expired";
  if (/InResponseTo/i.test(message)) return "saml_unknown_request";
  if (/SAML provider returned/i.test(message)) return "saml_idp_error";
  if (/issuer/i.test(message)) return "saml_wrong_issuer";
  return "saml_malformed";
}
