import { generate } from "selfsigned";
import { expect, test } from "vitest";
import { certificatesFrom, parseIdpMetadata } from "./idp-metadata";

const body = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, "");

test("an identity provider's metadata: entity id, the HTTP-Redirect sign-in URL first, both signing certificates of a rollover", async () => {
  const [a, b] = await Promise.all([
    generate([{ name: "commonName", value: "a" }], { keySize: 2048 }),
    generate([{ name: "commonName", value: "b" }], { keySize: 2048 }),
  ]);
  const key = (pem: string, use = "signing") =>
    `<md:KeyDescriptor use="${use}"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${body(pem)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
  const xml = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.test/app"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${key(a.cert)}${key(b.cert)}${key(a.cert, "encryption")}<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.test/post"/><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.test/redirect"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
  const m = parseIdpMetadata(xml);
  expect(m.entityId).toBe("https://idp.test/app");
  expect(m.ssoUrl).toBe("https://idp.test/redirect");
  expect(m.certs.map(body)).toEqual([body(a.cert), body(b.cert)]);
  expect(certificatesFrom(`${a.cert}\n${b.cert}`, "idpCerts").map(body)).toEqual([body(a.cert), body(b.cert)]);
});

test("metadata with a DTD, without an IdP descriptor, or a certificate that is not one, is refused on its field", () => {
  const fails = (fn: () => unknown) => {
    try {
      fn();
      return null;
    } catch (err) {
      return (err as { code?: string; fields?: { field: string }[] }).fields?.[0]?.field;
    }
  };
  expect(fails(() => parseIdpMetadata('<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'))).toBe("metadataXml");
  expect(fails(() => parseIdpMetadata('<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>'))).toBe(
    "metadataXml",
  );
  expect(fails(() => certificatesFrom("-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----", "idpCerts"))).toBe(
    "idpCerts",
  );
});
