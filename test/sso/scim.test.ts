/**
 * SCIM 2.0 provisioning at Sentry's paths, on SQLite and PostgreSQL against the built server:
 * Okta's and Microsoft Entra ID's documented request sequences replayed as they send them (their
 * shapes differ: Okta deactivates with a path-less `replace` of `{active: false}` and removes a
 * group member by `members[value eq "…"]`; Entra capitalises ops, sends `active` as the string
 * "False", `emails[type eq "work"].value`, and removes members with a `value` array), checking the
 * members, teams and sessions that result: a deprovisioned person's open browser session and
 * personal token stop working on the very next request; the last owner is never removed; manual
 * changes to what the identity provider manages are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { b64, buildResponse, type IdpKeys, makeIdpKeys } from "../helpers/saml-idp.js";
import { startServer, type TestServer } from "../helpers/server.js";
import { runFormAction, signInCookie } from "../helpers/server-actions.js";
import { dialects } from "../helpers/test-db.js";

const PASSWORD = "correct horse battery";
const ISSUER = "https://idp.scim.test/saml";
type Json = Record<string, unknown> & { Resources?: Json[]; totalResults?: number; id?: string; active?: boolean };

describe.each(await dialects())("SCIM provisioning on %s", (dialect) => {
  let server: TestServer;
  let owner: string;
  let token: string;
  let keys: IdpKeys;
  let base: string;

  async function scim(method: string, path: string, body?: unknown, auth = token): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: `Bearer ${auth}` } : {}),
        accept: "application/scim+json",
        ...(body === undefined ? {} : { "content-type": "application/scim+json; charset=utf-8" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
  }

  async function orgApi(path: string, headers: Record<string, string>): Promise<Response> {
    return fetch(`${server.url}/api/0/organizations/acme/${path}`, { headers });
  }

  async function members(): Promise<Map<string, string>> {
    const res = await orgApi("members/", { cookie: owner });
    const list = (await res.json()) as Array<{ email: string; orgRole?: string; role?: string }>;
    return new Map(list.map((m) => [m.email, m.orgRole ?? m.role ?? ""]));
  }

  /** Who is on the team, from each member's detail (Sentry's `teams`). */
  async function teamMembers(slug: string): Promise<string[]> {
    const list = (await (await orgApi("members/", { cookie: owner })).json()) as Array<{ id: string; email: string }>;
    const out: string[] = [];
    for (const m of list) {
      const detail = (await (await orgApi(`members/${m.id}/`, { cookie: owner })).json()) as { teams: string[] };
      if (detail.teams.includes(slug)) out.push(m.email);
    }
    return out.sort();
  }

  async function teamName(slug: string): Promise<string | undefined> {
    const teams = (await (await orgApi("teams/", { cookie: owner })).json()) as Array<{ slug: string; name: string }>;
    return teams.find((t) => t.slug === slug)?.name;
  }

  /** Signs the person in through SAML (an IdP-initiated post) and makes them a personal token. */
  async function sessionAndToken(email: string): Promise<{ cookie: string; token: string }> {
    const xml = buildResponse({
      issuer: ISSUER,
      acsUrl: `${server.url}/api/sso/acme/saml/acs`,
      audience: `${server.url}/api/sso/acme/saml/metadata`,
      nameId: email,
      attributes: { email },
      sign: "assertion",
      keys,
    });
    const res = await fetch(`${server.url}/api/sso/acme/saml/acs`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ SAMLResponse: b64(xml) }),
      redirect: "manual",
    });
    expect(res.status, res.headers.get("x-errata-error") ?? "").toBe(303);
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const made = await runFormAction(server, cookie, "createPersonalTokenAction", {}, { name: "laptop", scopes: "org:read" });
    const personal = /sntryu_[0-9a-f]{64}/.exec(made.body)?.[0];
    expect(personal, made.body.slice(0, 300)).toBeTruthy();
    return { cookie, token: personal as string };
  }

  async function stillWorks(who: { cookie: string; token: string }): Promise<[number, number]> {
    const bySession = await orgApi("", { cookie: who.cookie });
    const byToken = await orgApi("", { authorization: `Bearer ${who.token}` });
    return [bySession.status, byToken.status];
  }

  beforeAll(async () => {
    server = await startServer({ dialect, env: { SSO_ALLOW_PRIVATE: "true" } });
    await server.cli("user", "create", "--email", "owner@acme.test", "--password", PASSWORD, "--org", "acme");
    await server.cli("user", "create", "--email", "owner@globex.test", "--password", PASSWORD, "--org", "globex");
    owner = await signInCookie(server, "owner@acme.test", PASSWORD);
    keys = await makeIdpKeys();
    const saved = await runFormAction(
      server,
      owner,
      "saveSamlAction",
      { org: "acme" },
      {
        org: "acme",
        source: "manual",
        idpEntityId: ISSUER,
        idpSsoUrl: "https://idp.scim.test/sso",
        idpCerts: keys.cert,
        attrEmail: "email",
        attrName: "",
        attrGroups: "groups",
        defaultRole: "member",
      },
    );
    expect(saved.body).toContain("Saved");
    const made = await runFormAction(server, owner, "rotateScimTokenAction", { org: "acme" }, { org: "acme" });
    token = /errata_scim_[A-Za-z0-9_-]{43}/.exec(made.body)?.[0] as string;
    expect(token).toBeTruthy();
    base = `${server.url}/api/0/organizations/acme/scim/v2`;
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
  });

  test("discovery: ServiceProviderConfig, Schemas and ResourceTypes", async () => {
    const spc = await scim("GET", "/ServiceProviderConfig");
    expect(spc.status).toBe(200);
    expect(spc.body).toMatchObject({ patch: { supported: true }, filter: { supported: true }, bulk: { supported: false } });
    const schemas = await scim("GET", "/Schemas");
    expect(schemas.body.Resources?.map((r) => r.id)).toEqual([
      "urn:ietf:params:scim:schemas:core:2.0:User",
      "urn:ietf:params:scim:schemas:core:2.0:Group",
    ]);
    const types = await scim("GET", "/ResourceTypes");
    expect(types.body.Resources?.map((r) => r.endpoint)).toEqual(["/Users", "/Groups"]);
  });

  test("only this organization's SCIM token opens it: none, a user's session, another organization's token → 401", async () => {
    const none = await scim("GET", "/Users", undefined, "");
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], status: "401", code: "scim_unauthorized" });
    const bySession = await fetch(`${base}/Users`, { headers: { cookie: owner } });
    expect(bySession.status).toBe(401);
    const globex = await signInCookie(server, "owner@globex.test", PASSWORD);
    const made = await runFormAction(server, globex, "rotateScimTokenAction", { org: "globex" }, { org: "globex" });
    const globexToken = /errata_scim_[A-Za-z0-9_-]{43}/.exec(made.body)?.[0] as string;
    expect((await scim("GET", "/Users", undefined, globexToken)).status).toBe(401);
    expect(
      (await fetch(`${server.url}/api/0/organizations/globex/scim/v2/Users`, { headers: { authorization: `Bearer ${globexToken}` } }))
        .status,
    ).toBe(200);
  });

  test("Okta: match by userName, create, read, update, push a group, rename it, move members, deactivate (session and token end at once), reactivate", async () => {
    // 1. Okta looks the person up first.
    const lookup = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "alice@okta.test"')}&startIndex=1&count=100`);
    expect(lookup.body).toMatchObject({ totalResults: 0, Resources: [] });
    // 2. Not found: create (Okta's documented body).
    const created = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "alice@okta.test",
      name: { givenName: "Alice", familyName: "Okta" },
      emails: [{ primary: true, value: "alice@okta.test", type: "work" }],
      displayName: "Alice Okta",
      locale: "en-US",
      externalId: "00u1abcd",
      groups: [],
      password: "1mz050nq",
      active: true,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ userName: "alice@okta.test", active: true, externalId: "00u1abcd" });
    const alice = created.body.id as string;
    expect((await members()).get("alice@okta.test")).toBe("member");
    // A second create of the same userName is a uniqueness conflict.
    const again = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: "alice@okta.test",
      active: true,
    });
    expect(again.status).toBe(409);
    expect(again.body.scimType).toBe("uniqueness");
    // 3. Read and profile update (PUT).
    expect((await scim("GET", `/Users/${alice}`)).body).toMatchObject({ id: alice, active: true });
    const put = await scim("PUT", `/Users/${alice}`, {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      id: alice,
      userName: "alice@okta.test",
      name: { givenName: "Alicia", familyName: "Okta" },
      emails: [{ primary: true, value: "alice@okta.test", type: "work" }],
      active: true,
    });
    expect(put.body).toMatchObject({ displayName: "Alicia Okta" });
    const bob = (
      await scim("POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        userName: "bob@okta.test",
        emails: [{ primary: true, value: "bob@okta.test" }],
        active: true,
      })
    ).body.id as string;

    // 4. Group push: the group becomes a team with its members, managed by the provider.
    const group = await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Engineering",
      members: [{ value: alice, display: "alice@okta.test" }],
    });
    expect(group.status).toBe(201);
    const gid = group.body.id as string;
    expect(await teamMembers("engineering")).toEqual(["alice@okta.test"]);
    // 5. Rename (path-less replace with the id and displayName): the team follows.
    const renamed = await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", value: { id: gid, displayName: "Platform" } }],
    });
    expect(renamed.body.displayName).toBe("Platform");
    expect(await teamName("engineering")).toBe("Platform");
    // 6. Add bob, remove alice by path filter.
    await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "add", path: "members", value: [{ value: bob, display: "bob@okta.test" }] }],
    });
    await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "remove", path: `members[value eq "${alice}"]` }],
    });
    expect(await teamMembers("engineering")).toEqual(["bob@okta.test"]);
    expect((await scim("GET", `/Groups/${gid}`)).body.members).toEqual([expect.objectContaining({ value: bob, display: "bob@okta.test" })]);

    // 7. Alice signs in through SAML (her account is SCIM's: no linking needed) and makes a personal token.
    const session = await sessionAndToken("alice@okta.test");
    expect(await stillWorks(session)).toEqual([200, 200]);
    // 8. Okta deactivates: membership, session and token end at once.
    const off = await scim("PATCH", `/Users/${alice}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    expect(off.body).toMatchObject({ id: alice, active: false });
    expect((await members()).has("alice@okta.test")).toBe(false);
    const [bySession, byToken] = await stillWorks(session);
    expect(bySession).toBe(401);
    expect(byToken).toBe(401);
    // The provider still finds her, inactive; her SAML sign-in is refused while she is.
    const found = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "alice@okta.test"')}`);
    expect(found.body.Resources?.[0]).toMatchObject({ id: alice, active: false });
    // 9. Reactivated: a member again.
    const on = await scim("PATCH", `/Users/${alice}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", value: { active: true } }],
    });
    expect(on.body.active).toBe(true);
    expect((await members()).get("alice@okta.test")).toBe("member");
  });

  test('Entra ID: create, filter, PATCH variants, group add/remove by value arrays, disable with "False", delete', async () => {
    const userName = "Test_User_dfeef4c5@entra.test";
    expect((await scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)).body.totalResults).toBe(0);
    const created = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      userName,
      active: true,
      emails: [{ primary: true, type: "work", value: "carol@entra.test" }],
      meta: { resourceType: "User" },
      name: { formatted: "Carol Entra", familyName: "Entra", givenName: "Carol" },
      roles: [],
    });
    expect(created.status).toBe(201);
    const carol = created.body.id as string;
    expect((await members()).get("carol@entra.test")).toBe("member");
    // Entra also matches by externalId.
    const byExternal = await scim("GET", `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`);
    expect(byExternal.body.Resources?.map((r) => r.id)).toEqual([carol]);
    // PATCH, multi-valued and single-valued, capitalised ops.
    const patched = await scim("PATCH", `/Users/${carol}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [
        { op: "Replace", path: 'emails[type eq "work"].value', value: "carol@entra.test" },
        { op: "Replace", path: "name.familyName", value: "Updated" },
        { op: "Add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Eng" },
      ],
    });
    expect(patched.status).toBe(200);
    const renamed = await scim("PATCH", `/Users/${carol}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Replace", path: "userName", value: "carol.entra@entra.test" }],
    });
    expect(renamed.body.userName).toBe("carol.entra@entra.test");

    // Groups, Entra's way.
    const group = await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "Entra Admins",
      meta: { resourceType: "Group" },
      members: [],
    });
    const gid = group.body.id as string;
    const byName = await scim("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Entra Admins"')}`);
    expect(byName.body.Resources).toEqual([expect.objectContaining({ id: gid, displayName: "Entra Admins" })]);
    expect(byName.body.Resources?.[0]).not.toHaveProperty("members");
    await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Add", path: "members", value: [{ $ref: null, value: carol }] }],
    });
    expect(await teamMembers("entra-admins")).toEqual(["carol@entra.test"]);
    await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: carol }] }],
    });
    expect(await teamMembers("entra-admins")).toEqual([]);
    await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Replace", path: "displayName", value: "Entra Admins 2" }],
    });
    expect(await teamName("entra-admins")).toBe("Entra Admins 2");
    await scim("PATCH", `/Groups/${gid}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Add", path: "members", value: [{ $ref: null, value: carol }] }],
    });

    // Disable with Entra's string "False": session and token end at once.
    const session = await sessionAndToken("carol@entra.test");
    expect(await stillWorks(session)).toEqual([200, 200]);
    const off = await scim("PATCH", `/Users/${carol}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "Replace", path: "active", value: "False" }],
    });
    expect(off.body.active).toBe(false);
    expect(await stillWorks(session)).toEqual([401, 401]);
    expect((await members()).has("carol@entra.test")).toBe(false);
    expect(await teamMembers("entra-admins")).toEqual([]);
    // Delete: gone for SCIM too.
    expect((await scim("DELETE", `/Users/${carol}`)).status).toBe(204);
    expect((await scim("GET", `/Users/${carol}`)).status).toBe(404);
    expect((await scim("DELETE", `/Groups/${gid}`)).status).toBe(204);
    expect((await scim("GET", `/Groups/${gid}`)).status).toBe(404);
  });

  test("the last owner is never deprovisioned; bad filters and bodies get SCIM errors with catalogue codes", async () => {
    const found = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "owner@acme.test"')}`);
    const ownerId = found.body.Resources?.[0]?.id as string;
    const off = await scim("PATCH", `/Users/${ownerId}`, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", value: { active: false } }],
    });
    expect(off.status).toBe(409);
    expect(off.body).toMatchObject({ scimType: "mutability", code: "last_owner" });
    expect((await members()).get("owner@acme.test")).toBe("owner");
    expect((await scim("DELETE", `/Users/${ownerId}`)).status).toBe(409);
    const badFilter = await scim("GET", `/Users?filter=${encodeURIComponent('userName co "a"')}`);
    expect(badFilter.body).toMatchObject({ status: "400", scimType: "invalidFilter", code: "scim_invalid_filter" });
    const badPatch = await scim("PATCH", `/Users/${ownerId}`, { Operations: [{ op: "move", path: "active" }] });
    expect(badPatch.body).toMatchObject({ status: "400", scimType: "invalidValue", code: "scim_invalid_value" });
    expect((await scim("GET", "/Users/no-such-user")).status).toBe(404);
  });

  test("pagination: startIndex and count over the members", async () => {
    for (const n of [1, 2, 3])
      await scim("POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        userName: `page${n}@scim.test`,
        active: true,
      });
    const all = await scim("GET", "/Users?startIndex=1&count=100");
    const total = all.body.totalResults as number;
    const first = await scim("GET", "/Users?startIndex=1&count=2");
    const second = await scim("GET", "/Users?startIndex=3&count=2");
    expect(first.body).toMatchObject({ totalResults: total, startIndex: 1, itemsPerPage: 2 });
    expect(second.body).toMatchObject({ totalResults: total, startIndex: 3 });
    const ids = [...(first.body.Resources ?? []), ...(second.body.Resources ?? [])].map((r) => r.id);
    expect(new Set(ids).size).toBe(4);
    expect(ids).toEqual(all.body.Resources?.slice(0, 4).map((r) => r.id));
  });

  test("what the provider manages is refused by hand: a provisioned member's role and removal, a managed team membership", async () => {
    const dave = (
      await scim("POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "dave@okta.test", active: true })
    ).body.id as string;
    await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Support",
      members: [{ value: dave }],
    });
    const role = await runFormAction(server, owner, "changeRoleAction", { org: "acme" }, { org: "acme", userId: dave, role: "admin" });
    expect(role.body).toContain("managed by your identity provider");
    expect((await members()).get("dave@okta.test")).toBe("member");
    const removal = await runFormAction(
      server,
      owner,
      "removeMemberAction",
      { org: "acme" },
      { org: "acme", userId: dave, confirm: "dave@okta.test" },
    );
    expect(removal.body).toMatch(/provisioned by your identity provider/);
    expect((await members()).has("dave@okta.test")).toBe(true);
    const team = await runFormAction(
      server,
      owner,
      "teamChangeAction",
      { org: "acme" },
      { org: "acme", team: "support", kind: "member", op: "remove", value: dave },
    );
    expect(team.body).toContain("identity-provider group");
    expect(await teamMembers("support")).toEqual(["dave@okta.test"]);
    // The members page says so.
    const page = await fetch(`${server.url}/acme/settings/members`, { headers: { cookie: owner } });
    expect(await page.text()).toContain("managed by your identity provider");
    // And the audit log has the provisioning.
    const log = (await (await orgApi("audit-logs/?event=scim.user.create", { cookie: owner })).json()) as {
      rows: Array<{ note: string; actor: { name: string } }>;
    };
    expect(log.rows.some((r) => r.note === "dave@okta.test" && r.actor.name === "SCIM")).toBe(true);
  });
});
