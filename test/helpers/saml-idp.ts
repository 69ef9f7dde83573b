/**
 * A SAML 2.0 identity provider for tests, built on xml-crypto (the XML signature library node-saml
 * itself uses) with a key and certificate made at test time by `selfsigned`:
 *
 *  - `buildResponse` makes a Response (signed as asked: the assertion, the response, both or
 *    neither; any time window, audience, recipient, InResponseTo) for the HTTP-level hostile suite;
 *  - `startSamlIdp` serves it over HTTP: SP-initiated (GET /sso with an HTTP-Redirect AuthnRequest,
 *    a login page, then an auto-posting form to the ACS), IdP-initiated (GET /init?user=…), and its
 *    metadata (GET /metadata) — what a browser test signs in through.
 */
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { inflateRawSync } from "node:zlib";
import { generate } from "selfsigned";
import { SignedXml } from "xml-crypto";

export interface IdpKeys {
  key: string;
  cert: string;
}

export async function makeIdpKeys(cn = "Test IdP"): Promise<IdpKeys> {
  const pems = await generate([{ name: "commonName", value: cn }], { keySize: 2048, algorithm: "sha256" });
  return { key: pems.private, cert: pems.cert };
}

export interface ResponseOptions {
  issuer: string;
  acsUrl: string;
  audience: string;
  nameId: string;
  attributes?: Record<string, string | string[]>;
  inResponseTo?: string;
  sign: "assertion" | "response" | "both" | "none";
  keys: IdpKeys;
  assertionId?: string;
  responseId?: string;
  /** default: now − 1 min … now + 5 min */
  notBefore?: Date;
  notOnOrAfter?: Date;
  /** the Response's Destination; null leaves it out */
  destination?: string | null;
  recipient?: string;
  nameIdXml?: string;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
export const newId = () => `_${randomBytes(16).toString("hex")}`;
const certBody = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "");

function sign(xml: string, keys: IdpKeys, element: "Assertion" | "Response"): string {
  const sig = new SignedXml({
    privateKey: keys.key,
    publicCert: keys.cert,
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  sig.addReference({
    xpath: `//*[local-name(.)='${element}']`,
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
  });
  // The schema puts the signature right after the element's Issuer.
  sig.computeSignature(xml, { location: { reference: `//*[local-name(.)='${element}']/*[local-name(.)='Issuer']`, action: "after" } });
  return sig.getSignedXml();
}

export function assertionXml(o: ResponseOptions): string {
  const now = Date.now();
  const notBefore = (o.notBefore ?? new Date(now - 60_000)).toISOString();
  const notOnOrAfter = (o.notOnOrAfter ?? new Date(now + 5 * 60_000)).toISOString();
  const attrs = Object.entries(o.attributes ?? {})
    .map(
      ([name, v]) =>
        `<saml:Attribute Name="${esc(name)}">${(Array.isArray(v) ? v : [v]).map((x) => `<saml:AttributeValue>${esc(x)}</saml:AttributeValue>`).join("")}</saml:Attribute>`,
    )
    .join("");
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : "";
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.assertionId ?? newId()}" Version="2.0" IssueInstant="${new Date(now).toISOString()}">` +
    `<saml:Issuer>${esc(o.issuer)}</saml:Issuer>` +
    `<saml:Subject>${o.nameIdXml ?? `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${esc(o.nameId)}</saml:NameID>`}` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData NotOnOrAfter="${notOnOrAfter}" Recipient="${esc(o.recipient ?? o.acsUrl)}"${irt}/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${notBefore}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${esc(o.audience)}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${new Date(now).toISOString()}" SessionIndex="${newId()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    (attrs ? `<saml:AttributeStatement>${attrs}</saml:AttributeStatement>` : "") +
    "</saml:Assertion>"
  );
}

/** A Response around `assertion` (already signed or not), the response signed when asked. */
export function wrapResponse(o: ResponseOptions, assertion: string): string {
  const irt = o.inResponseTo ? ` InResponseTo="${o.inResponseTo}"` : "";
  const dest = o.destination === null ? "" : ` Destination="${esc(o.destination ?? o.acsUrl)}"`;
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${o.responseId ?? newId()}" Version="2.0" IssueInstant="${new Date().toISOString()}"${dest}${irt}>` +
    `<saml:Issuer>${esc(o.issuer)}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    "</samlp:Response>";
  return o.sign === "response" || o.sign === "both" ? sign(xml, o.keys, "Response") : xml;
}

/** A whole Response as XML. */
export function buildResponse(o: ResponseOptions): string {
  const a = assertionXml(o);
  return wrapResponse(o, o.sign === "assertion" || o.sign === "both" ? sign(a, o.keys, "Assertion") : a);
}

export const b64 = (xml: string) => Buffer.from(xml, "utf8").toString("base64");

export function idpMetadata(entityId: string, ssoUrl: string, certs: string[]): string {
  const keys = certs
    .map(
      (c) =>
        `<md:KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${certBody(c)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`,
    )
    .join("");
  return (
    `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${esc(entityId)}">` +
    `<md:IDPSSODescriptor WantAuthnRequestsSigned="false" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${keys}` +
    `<md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="${esc(ssoUrl)}"/>` +
    `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${esc(ssoUrl)}"/>` +
    "</md:IDPSSODescriptor></md:EntityDescriptor>"
  );
}

export interface SamlIdp {
  url: string;
  entityId: string;
  ssoUrl: string;
  keys: IdpKeys;
  /** the AuthnRequests received (decoded), newest last */
  requests: { id: string; acs: string; signed: boolean; relayState: string | null }[];
  /** per login name: groups asserted */
  groups: Map<string, string[]>;
  metadata(): string;
  close(): Promise<void>;
}

/** The auto-posting form an IdP answers with (a button too, so it works without scripts). */
function postForm(acs: string, samlResponse: string, relayState: string | null): string {
  return `<!doctype html><html><body onload="document.forms[0].submit()"><form method="post" action="${esc(acs)}"><input type="hidden" name="SAMLResponse" value="${samlResponse}"/>${relayState ? `<input type="hidden" name="RelayState" value="${esc(relayState)}"/>` : ""}<button type="submit">Continue</button></form></body></html>`;
}

export async function startSamlIdp(sp: { acsUrl: string; audience: string }): Promise<SamlIdp> {
  const keys = await makeIdpKeys();
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const idp: SamlIdp = {
    url,
    entityId: `${url}/metadata`,
    ssoUrl: `${url}/sso`,
    keys,
    requests: [],
    groups: new Map(),
    metadata: () => idpMetadata(idp.entityId, idp.ssoUrl, [keys.cert]),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const respond = (login: string, inResponseTo: string | undefined) =>
    b64(
      buildResponse({
        issuer: idp.entityId,
        acsUrl: sp.acsUrl,
        audience: sp.audience,
        nameId: `${login}@example.com`,
        attributes: { email: `${login}@example.com`, firstName: "Person", lastName: login, groups: idp.groups.get(login) ?? [] },
        inResponseTo,
        sign: "assertion",
        keys,
      }),
    );
  server.on("request", (req, res) => {
    const u = new URL(req.url ?? "/", url);
    const html = (body: string) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(body);
    };
    if (u.pathname === "/metadata") {
      res.writeHead(200, { "content-type": "application/samlmetadata+xml" });
      res.end(idp.metadata());
      return;
    }
    if (u.pathname === "/sso" && req.method === "GET") {
      const xml = inflateRawSync(Buffer.from(u.searchParams.get("SAMLRequest") ?? "", "base64")).toString("utf8");
      const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? "";
      const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? sp.acsUrl;
      const relayState = u.searchParams.get("RelayState");
      idp.requests.push({ id, acs, signed: u.searchParams.has("Signature") && u.searchParams.has("SigAlg"), relayState });
      html(
        `<!doctype html><html><body><h1>Test IdP</h1><form method="post" action="/login"><input type="hidden" name="request" value="${esc(id)}"/><input type="hidden" name="relay" value="${esc(relayState ?? "")}"/><label>Login <input name="login" autocomplete="off"/></label><button type="submit">Sign in at IdP</button></form></body></html>`,
      );
      return;
    }
    if (u.pathname === "/login" && req.method === "POST") {
      let body = "";
      req.on("data", (d: Buffer) => {
        body += d;
      });
      req.on("end", () => {
        const f = new URLSearchParams(body);
        html(postForm(sp.acsUrl, respond(f.get("login") ?? "nobody", f.get("request") || undefined), f.get("relay") || null));
      });
      return;
    }
    if (u.pathname === "/init") {
      html(postForm(sp.acsUrl, respond(u.searchParams.get("user") ?? "nobody", undefined), u.searchParams.get("relay")));
      return;
    }
    res.writeHead(404);
    res.end();
  });
  return idp;
}
