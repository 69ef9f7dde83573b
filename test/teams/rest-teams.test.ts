/**
 * The team's Sentry-compatible REST against the built server: organizations, members (list,
 * invite, accept through the public invitation endpoint, change role, remove), teams (create,
 * list, detail, delete, create a project under a team, add a project), DSN keys (list, create, update); bad input
 * gets a catalogued 4xx, and a member's token is refused what the member may not do.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServer, type TestServer } from "../helpers/server";

const ALL = "org:read,project:read,project:write,project:releases,event:read,event:write,member:read,member:write";

describe("REST: organizations, members, teams, projects and keys", () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    token = await server.cli("token", "create", "--email", "owner@example.com", "--scopes", ALL);
  });
  afterAll(async () => server?.stop());

  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked field by field with toMatchObject.
  async function api(method: string, path: string, body?: unknown, bearer = token): Promise<{ status: number; body: any }> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  test("organizations and members: invite, accept, change role, remove", async () => {
    expect((await api("GET", "/api/0/organizations/")).body).toMatchObject([{ slug: "acme", orgRole: "owner" }]);
    const invited = await api("POST", "/api/0/organizations/acme/members/", { email: "dev@example.com", orgRole: "member" });
    expect(invited).toMatchObject({ status: 201, body: { email: "dev@example.com", orgRole: "member", pending: true } });
    expect((await api("POST", "/api/0/organizations/acme/members/", { email: "nope", orgRole: "member" })).status).toBe(400);
    expect((await api("POST", "/api/0/organizations/acme/members/", { email: "x@example.com", orgRole: "god" })).status).toBe(400);

    const secret = String(invited.body.inviteLink).split("/").at(-1);
    const accepted = await fetch(`${server.url}/api/invite/${secret}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Dev", password: "a long enough password" }),
    });
    expect(accepted.status).toBe(200);
    expect((await fetch(`${server.url}/api/invite/${secret}`, { method: "POST", body: "{}" })).status).toBe(410);

    const members = (await api("GET", "/api/0/organizations/acme/members/")).body as Array<{ id: string; email: string; orgRole: string }>;
    const dev = members.find((m) => m.email === "dev@example.com");
    expect(dev?.orgRole).toBe("member");
    // A member cannot be given a token with the scopes only admins use (the role matrix checks that
    // one made anyway acts as a member); with what a member may have, it cannot invite or change roles.
    await expect(server.cli("token", "create", "--email", "dev@example.com", "--scopes", ALL)).rejects.toThrow(/scope_not_allowed/);
    const devToken = await server.cli(
      "token",
      "create",
      "--email",
      "dev@example.com",
      "--scopes",
      "org:read,project:read,project:releases,event:read,event:write,member:read",
    );
    expect((await api("POST", "/api/0/organizations/acme/members/", { email: "y@example.com" }, devToken)).status).toBe(403);
    expect((await api("PUT", `/api/0/organizations/acme/members/${dev?.id}/`, { orgRole: "owner" }, devToken)).status).toBe(403);

    expect((await api("PUT", `/api/0/organizations/acme/members/${dev?.id}/`, { orgRole: "admin" })).body).toMatchObject({
      orgRole: "admin",
    });
    expect((await api("DELETE", `/api/0/organizations/acme/members/${dev?.id}/`)).status).toBe(204);
    expect((await api("GET", "/api/0/organizations/acme/members/")).body).toHaveLength(1);
    // Their personal token went with the removal (SPEC §6: a removed person keeps no session or personal token).
    expect((await api("GET", "/api/0/organizations/acme/members/", undefined, devToken)).status).toBe(401);
  });

  test("teams, a project created under a team, and DSN keys", async () => {
    expect((await api("POST", "/api/0/organizations/acme/teams/", { name: "Backend" })).body).toMatchObject({
      slug: "backend",
      name: "Backend",
    });
    const created = await api("POST", "/api/0/teams/acme/backend/projects/", { name: "svc", platform: "node" });
    expect(created).toMatchObject({ status: 201, body: { slug: "svc", platform: "node" } });
    expect((await api("POST", "/api/0/projects/acme/web/teams/backend/")).status).toBe(201);
    const teams = (await api("GET", "/api/0/organizations/acme/teams/")).body as Array<{ slug: string; projects: Array<{ slug: string }> }>;
    expect(
      teams
        .find((t) => t.slug === "backend")
        ?.projects.map((p) => p.slug)
        .sort(),
    ).toEqual(["svc", "web"]);

    const keys = await api("GET", "/api/0/projects/acme/svc/keys/");
    expect(keys.body).toHaveLength(1);
    expect(keys.body[0].dsn.public).toMatch(/^http:\/\/[0-9a-f]{32}@127\.0\.0\.1:\d+\/\d+$/);
    const key = await api("POST", "/api/0/projects/acme/svc/keys/", { name: "CI" });
    expect(key).toMatchObject({ status: 201, body: { name: "CI", isActive: true } });
    const off = await api("PUT", `/api/0/projects/acme/svc/keys/${key.body.id}/`, { isActive: false, name: "CI (off)" });
    expect(off.body).toMatchObject({ name: "CI (off)", isActive: false });
    expect((await api("PUT", "/api/0/projects/acme/svc/keys/not-a-key/", { isActive: false })).status).toBe(404);
    expect((await api("GET", "/api/0/projects/acme/nope/keys/")).status).toBe(404);

    // Team detail and delete; the team's projects stay in the organization.
    await api("POST", "/api/0/organizations/acme/teams/", { name: "Short lived" });
    expect((await api("GET", "/api/0/teams/acme/short-lived/")).body).toMatchObject({ slug: "short-lived", name: "Short lived" });
    expect((await api("DELETE", "/api/0/teams/acme/short-lived/")).status).toBe(204);
    expect((await api("GET", "/api/0/teams/acme/short-lived/")).status).toBe(404);
    expect((await api("GET", "/api/0/teams/globex/backend/")).status).toBe(404);
  });
});
