/**
 * SAML 2.0 sign-in at the HTTP level, on SQLite and PostgreSQL against the built server: the
 * organization's SAML is configured through its settings action with a test identity provider's
 * certificate (made here), then responses are posted to the ACS as an identity provider's page
 * would. Genuine ones sign in (SP- and IdP-initiated, assertion or whole response signed, either
 * certificate during a rollover); each hostile one is refused with its catalogue code and a 400:
 * unsigned, wrong audience, expired, replayed, signature-wrapped (two ways), XXE and entity
 * expansion, a comment injected in the NameID, re-signed by another key, and more.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { openDb } from "../../src/storage/db.js";
import { writeTx } from "../../src/storage/dialect.js";
import { upsertMember } from "../../src/storage/orgs/orgs.js";
import {
  assertionXml,
  b64,
  buildResponse,
  type IdpKeys,
  makeIdpKeys,
  newId,
  type ResponseOptions,
  wrapResponse,
} from "../helpers/saml-idp.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { runFormAction, signInCookie } from "../helpers/server-actions.js";
import { dialects } from "../helpers/test-db.js";

const PASSWORD = "correct horse battery";
const ISSUER = "https://idp.hostile.test/saml";

describe.each(await dialects())("SAML responses at the ACS on %s", (dialect) => {
  let server: TestServer;
  let cookie: string;
  let keys: IdpKeys;
  let evil: IdpKeys;
  let acs: string;
  let audience: string;

  async function configure(certs: string[]): Promise<void> {
    const res = await runFormAction(
      server,
      cookie,
      "saveSamlAction",
      { org: "acme" },
      {
        org: "acme",
        source: "manual",
        idpEntityId: ISSUER,
        idpSsoUrl: "https://idp.hostile.test/sso",
        idpCerts: certs.join("\n"),
        attrEmail: "email",
        attrName: "firstName,lastName",
        attrGroups: "groups",
        defaultRole: "member",
      },
    );
    expect(res.body).toMatch(/Saved: https:\/\/idp\.hostile\.test\/saml with \d certificate/);
  }

  function opts(over: Partial<ResponseOptions> = {}): ResponseOptions {
    const who = over.nameId ?? `person-${newId().slice(1, 9)}@example.com`;
    return { issuer: ISSUER, acsUrl: acs, audience, nameId: who, attributes: { email: who }, sign: "assertion", keys, ...over };
  }

  async function post(
    xml: string,
    relayState?: string,
  ): Promise<{ status: number; code: string | null; location: string | null; cookies: string[] }> {
    const form = new URLSearchParams({ SAMLResponse: b64(xml), ...(relayState ? { RelayState: relayState } : {}) });
    // As the identity provider's page posts it: from its own origin.
    const res = await fetch(acs, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://idp.hostile.test" },
      body: form,
      redirect: "manual",
    });
    await res.text();
    return {
      status: res.status,
      code: res.headers.get("x-errata-error"),
      location: res.headers.get("location"),
      cookies: res.headers.getSetCookie(),
    };
  }

  async function refused(xml: string, code: string): Promise<void> {
    const r = await post(xml);
    expect({ status: r.status, code: r.code }).toEqual({ status: 400, code });
    expect(r.cookies.some((c) => c.includes("session_token"))).toBe(false);
  }

  beforeAll(async () => {
    server = await startServer({ dialect, env: { SSO_ALLOW_PRIVATE: "true" } });
    await server.cli("user", "create", "--email", "owner@acme.test", "--password", PASSWORD, "--org", "acme");
    cookie = await signInCookie(server, "owner@acme.test", PASSWORD);
    [keys, evil] = await Promise.all([makeIdpKeys("Test IdP"), makeIdpKeys("Evil IdP")]);
    acs = `${server.url}/api/sso/acme/saml/acs`;
    audience = `${server.url}/api/sso/acme/saml/metadata`;
    await configure([keys.cert]);
  }, 180_000);
  afterAll(async () => {
    if (process.env.SHOW_LOGS) console.log(server?.logs().slice(0, 6000));
    await server?.stop();
  });

  test("a signed assertion (IdP-initiated) signs a new person in as a member; its RelayState path is where they land", async () => {
    const o = opts();
    const r = await post(buildResponse(o), "/acme/issues?query=is:unresolved");
    expect(r.status).toBe(303);
    expect(r.location).toBe("/acme/issues?query=is:unresolved");
    const session = r.cookies.map((c) => c.split(";")[0]).join("; ");
    expect(session).toContain("session_token");
    const me = await fetch(`${server.url}/api/0/organizations/acme/`, { headers: { cookie: session } });
    expect(me.status).toBe(200);
    const members = await fetch(`${server.url}/api/0/organizations/acme/members/`, { headers: { cookie } });
    const row = ((await members.json()) as Array<{ email: string; orgRole?: string; role?: string }>).find((m) => m.email === o.nameId);
    expect(row?.orgRole ?? row?.role).toBe("member");
  });

  test("a response signed as a whole (not its assertion) is accepted too", async () => {
    expect((await post(buildResponse(opts({ sign: "response" })))).status).toBe(303);
  });

  test("SP-initiated: the AuthnRequest goes out signed by the HTTP-Redirect binding; its answer is accepted once", async () => {
    const start = await fetch(`${server.url}/api/sso/acme/start?next=/acme/releases`, { redirect: "manual" });
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get("location") as string);
    expect(to.origin + to.pathname).toBe("https://idp.hostile.test/sso");
    expect(to.searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    expect(to.searchParams.get("Signature")).toBeTruthy();
    const { inflateRawSync } = await import("node:zlib");
    const request = inflateRawSync(Buffer.from(to.searchParams.get("SAMLRequest") as string, "base64")).toString("utf8");
    const id = /\sID="([^"]+)"/.exec(request)?.[1] as string;
    expect(request).toContain(`AssertionConsumerServiceURL="${acs}"`);
    const ok = await post(buildResponse(opts({ inResponseTo: id })));
    expect({ status: ok.status, location: ok.location }).toEqual({ status: 303, location: "/acme/releases" });
    // A second answer to the same request, even a freshly signed one, is refused.
    await refused(buildResponse(opts({ inResponseTo: id })), "saml_unknown_request");
  });

  test("an InResponseTo naming a request this organization never sent is refused", async () => {
    await refused(buildResponse(opts({ inResponseTo: newId() })), "saml_unknown_request");
  });

  test("unsigned: refused", async () => {
    await refused(buildResponse(opts({ sign: "none" })), "saml_unsigned");
  });

  test("wrong audience: refused", async () => {
    await refused(buildResponse(opts({ audience: "https://another-sp.test/metadata" })), "saml_wrong_audience");
  });

  test("expired (NotOnOrAfter ten minutes ago, beyond the allowed skew): refused", async () => {
    const past = Date.now() - 10 * 60_000;
    await refused(buildResponse(opts({ notBefore: new Date(past - 5 * 60_000), notOnOrAfter: new Date(past) })), "saml_expired");
  });

  test("not yet valid (NotBefore ten minutes ahead): refused", async () => {
    const future = Date.now() + 10 * 60_000;
    await refused(buildResponse(opts({ notBefore: new Date(future), notOnOrAfter: new Date(future + 5 * 60_000) })), "saml_expired");
  });

  test("replayed: the same assertion is accepted once, refused the second time", async () => {
    const xml = buildResponse(opts());
    expect((await post(xml)).status).toBe(303);
    await refused(xml, "saml_replayed");
    // Audited: the sign-in, then the refusal of the replay (the response was the provider's own).
    const log = await fetch(`${server.url}/api/0/organizations/acme/audit-logs/?event=sso.signin.refused`, { headers: { cookie } });
    const rows = ((await log.json()) as { rows: Array<{ event: string; note: string }> }).rows;
    expect(rows.some((r) => r.note === "saml_replayed")).toBe(true);
  });

  test("signature-wrapped: a forged assertion beside the signed one is refused", async () => {
    const genuine = opts({ nameId: "attacker@example.com", attributes: { email: "attacker@example.com" } });
    const signed = buildResponse(genuine);
    const forged = assertionXml(opts({ nameId: "owner@acme.test", attributes: { email: "owner@acme.test" } }));
    await refused(signed.replace("<samlp:Status>", `${forged}<samlp:Status>`), "saml_wrapped");
  });

  test("signature-wrapped: the signature moved onto a forged assertion (the signed one hidden away) is refused", async () => {
    const genuine = opts({ nameId: "attacker@example.com", attributes: { email: "attacker@example.com" } });
    const signed = buildResponse(genuine);
    const signature = /<Signature[\s\S]*<\/Signature>/.exec(signed)?.[0] as string;
    const forgedId = newId();
    const forged = assertionXml(
      opts({ nameId: "owner@acme.test", attributes: { email: "owner@acme.test" }, assertionId: forgedId }),
    ).replace("</saml:Issuer>", `</saml:Issuer>${signature}`);
    await refused(wrapResponse(genuine, forged), "saml_wrapped");
  });

  test("XXE: a document type declaration with an external entity is refused", async () => {
    const xml = buildResponse(opts({ nameIdXml: "<saml:NameID>&xxe;</saml:NameID>", sign: "none" }));
    await refused(`<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${xml}`, "saml_malformed");
  });

  test("entity expansion (billion laughs) is refused before it is expanded", async () => {
    const lol = `<!DOCTYPE r [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>`;
    await refused(`${lol}${buildResponse(opts({ nameIdXml: "<saml:NameID>&c;</saml:NameID>" }))}`, "saml_malformed");
  });

  test("a comment injected in a signed NameID (it would truncate the address) is refused", async () => {
    const o = opts({ nameId: "owner@acme.test.evil.test", attributes: { email: "owner@acme.test.evil.test" } });
    const signed = buildResponse(o);
    // Comments are outside exclusive canonicalization: the signature still verifies after this.
    const injected = signed.replace(">owner@acme.test.evil.test</saml:NameID>", ">owner@acme.test<!---->.evil.test</saml:NameID>");
    expect(injected).not.toBe(signed);
    await refused(injected, "saml_malformed");
  });

  test("re-signed by another key: refused", async () => {
    await refused(buildResponse(opts({ keys: evil })), "saml_signature_invalid");
  });

  test("a signed assertion whose content was changed after signing: refused", async () => {
    const o = opts({ nameId: "someone@example.com", attributes: { email: "someone@example.com" } });
    const tampered = buildResponse(o).replace(/someone@example\.com/g, "owner@acme.test");
    await refused(tampered, "saml_signature_invalid");
  });

  test("addressed to another ACS (Destination or Recipient): refused", async () => {
    await refused(buildResponse(opts({ destination: "https://other.test/acs" })), "saml_wrong_recipient");
    await refused(buildResponse(opts({ destination: null, recipient: "https://other.test/acs" })), "saml_wrong_recipient");
  });

  test("issued by another identity provider (signed with the right key): refused", async () => {
    await refused(buildResponse(opts({ issuer: "https://other-idp.test" })), "saml_wrong_issuer");
  });

  test("an existing account is not taken over by an assertion of its email", async () => {
    const r = await post(buildResponse(opts({ nameId: "owner@acme.test", attributes: { email: "owner@acme.test" } })));
    expect(r.status).toBe(409);
    expect(r.code).toBe("sso_link_required");
  });

  test("certificate rollover: with two certificates either signs; after the rollover the old one no longer does", async () => {
    const next = await makeIdpKeys("Next IdP");
    await configure([keys.cert, next.cert]);
    expect((await post(buildResponse(opts({ keys: next })))).status).toBe(303);
    expect((await post(buildResponse(opts({ keys })))).status).toBe(303);
    await configure([next.cert]);
    await refused(buildResponse(opts({ keys })), "saml_signature_invalid");
    expect((await post(buildResponse(opts({ keys: next })))).status).toBe(303);
    await configure([keys.cert]);
  });

  test("Require SSO: switching it on ends a member's password session and refuses their password; the owner's still works", async () => {
    await server.cli("user", "create", "--email", "pat@acme.test", "--password", PASSWORD, "--org", "pat-home");
    const db = openDb(server.db.config);
    try {
      const acme = Number(
        (await db.kysely.selectFrom("organizations").select("id").where("slug", "=", "acme").executeTakeFirstOrThrow()).id,
      );
      const pat = (await db.kysely
        .selectFrom("user" as never)
        .select("id" as never)
        .where("email" as never, "=", "pat@acme.test" as never)
        .executeTakeFirstOrThrow()) as { id: string };
      await writeTx(db, (tx) => upsertMember(tx, { orgId: acme, userId: pat.id, role: "member", now: Date.now() }));
    } finally {
      await db.close();
    }
    const patSession = await signInCookie(server, "pat@acme.test", PASSWORD);
    expect((await fetch(`${server.url}/api/0/organizations/acme/`, { headers: { cookie: patSession } })).status).toBe(200);
    const res = await runFormAction(
      server,
      cookie,
      "saveSamlAction",
      { org: "acme" },
      {
        org: "acme",
        source: "manual",
        idpEntityId: ISSUER,
        idpSsoUrl: "https://idp.hostile.test/sso",
        idpCerts: keys.cert,
        attrEmail: "email",
        attrName: "firstName,lastName",
        attrGroups: "groups",
        defaultRole: "member",
        required: "on",
      },
    );
    expect(res.body).toMatch(/SSO is now required: \d+ members? (was|were) signed out/);
    expect((await fetch(`${server.url}/api/0/organizations/acme/`, { headers: { cookie: patSession } })).status).toBe(401);
    const again = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "pat@acme.test", password: PASSWORD }),
    });
    expect(again.status).toBe(403);
    expect(await again.text()).toContain("sso_required");
    expect((await fetch(`${server.url}/api/0/organizations/acme/`, { headers: { cookie } })).status).toBe(200);
    await signInCookie(server, "owner@acme.test", PASSWORD);
    await configure([keys.cert]);
  });

  test("the SP metadata names the entity id, the ACS and the signing certificate", async () => {
    const res = await fetch(audience);
    expect(res.status).toBe(200);
    const xml = await res.text();
    expect(xml).toContain(`entityID="${audience}"`);
    expect(xml).toContain(`Location="${acs}"`);
    expect(xml).toMatch(/<ds:X509Certificate>[A-Za-z0-9+/=\s]{200,}<\/ds:X509Certificate>/);
  });
});
