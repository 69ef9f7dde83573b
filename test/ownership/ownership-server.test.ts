/**
 * Ownership and suspect commits on the real server (built dist/cli.mjs), on SQLite and PostgreSQL,
 * through Sentry's REST API: rules read and written in Sentry's shape, bad lines and unknown owners
 * refused whole; a new issue whose frame is in src/checkout/pay.js is auto-assigned to #payments by
 * `path:*\/checkout/* #payments` (activity says which rule), then, in suspect-commit mode, to the
 * member whose release commit touched that file; `…/committers/` names that author; a commit of
 * 10,000 files is kept, one of 10,001 refused with nothing stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, startServer, type TestServer } from "../helpers/server";
import { dialects } from "../helpers/test-db";

const SCOPES = "org:read,project:read,project:write,project:releases,event:read,event:write,member:read,member:write";
type Json = Record<string, unknown>;

describe.each(await dialects())("ownership and suspect commits on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let ingest: string;

  beforeAll(async () => {
    server = await startServer({ dialect, env: { LOG_LEVEL: "error" } });
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "correct horse battery", "--org", "acme");
    await server.cli(
      "user",
      "create",
      "--email",
      "dev@example.com",
      "--password",
      "correct horse battery",
      "--org",
      "acme",
      "--name",
      "Dev",
    );
    const dsn = (await server.cli("project", "create", "--org", "acme", "--name", "shop", "--platform", "node")).split("\n").pop() ?? "";
    const [, key, projectId] = /^http:\/\/(\w+)@[^/]+\/(\d+)$/.exec(dsn) as RegExpExecArray;
    ingest = `${server.url}/api/${projectId}/envelope/?sentry_key=${key}`;
    token = await server.cli("token", "create", "--email", "owner@example.com", "--scopes", SCOPES);
  });
  afterAll(async () => server?.stop());

  async function api(method: string, path: string, body?: unknown, bearer = token): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  /** An error event from a Node app whose top in-app frame is src/checkout/pay.js; resolves to the issue once digested. */
  async function sendCheckoutError(type: string, release: string): Promise<{ issue: Json; eventId: string }> {
    const eventId = crypto.randomUUID().replace(/-/g, "");
    const event = {
      event_id: eventId,
      platform: "node",
      level: "error",
      release,
      exception: {
        values: [
          {
            type,
            value: "card declined",
            stacktrace: {
              frames: [
                { filename: "node:internal/process", function: "run", in_app: false },
                {
                  filename: "/srv/shop/src/checkout/pay.js",
                  abs_path: "/srv/shop/src/checkout/pay.js",
                  function: "charge",
                  lineno: 12,
                  in_app: true,
                },
              ],
            },
          },
        ],
      },
    };
    const res = await fetch(ingest, { method: "POST", body: `{"event_id":"${eventId}"}\n{"type":"event"}\n${JSON.stringify(event)}` });
    expect(res.status).toBe(200);
    const issue = await eventually(
      async () => {
        const list = (await api("GET", "/api/0/projects/acme/shop/issues/?query=")).body as unknown as Json[];
        return list.find((i) => String(i.title).startsWith(type));
      },
      30_000,
      `the ${type} issue`,
    );
    return { issue, eventId };
  }

  test("rules in Sentry's shape; bad lines and unknown owners refused whole", async () => {
    expect((await api("POST", "/api/0/organizations/acme/teams/", { name: "Payments" })).body).toMatchObject({ slug: "payments" });
    const empty = await api("GET", "/api/0/projects/acme/shop/ownership/");
    expect(empty).toMatchObject({
      status: 200,
      body: { raw: null, fallthrough: true, autoAssignment: "Auto Assign to Issue Owner", codeownersAutoSync: true },
    });

    const badLine = await api("PUT", "/api/0/projects/acme/shop/ownership/", {
      raw: "path:src/** #payments\nfile:x.js #payments\npath:src/**",
    });
    expect(badLine.status).toBe(400);
    expect(badLine.body.error).toMatchObject({
      code: "validation_failed",
      fields: [
        { field: "raw.2", message: expect.stringContaining('unknown rule type "file"') },
        { field: "raw.3", message: expect.stringContaining("no owner") },
      ],
    });
    const unknown = await api("PUT", "/api/0/projects/acme/shop/ownership/", {
      raw: "path:src/** #payments\nurl:* #nobody ghost@example.com",
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({
      fields: [{ field: "raw.2", message: expect.stringContaining("#nobody, ghost@example.com") }],
    });
    const huge = await api("PUT", "/api/0/projects/acme/shop/ownership/", { raw: `path:a #payments\n${"#".repeat(1_000_000)}` });
    expect(huge.status).toBe(400);
    expect((await api("PUT", "/api/0/projects/acme/shop/ownership/", { autoAssignment: "Assign to anyone" })).status).toBe(400);
    // Nothing of the refused bodies was stored.
    expect((await api("GET", "/api/0/projects/acme/shop/ownership/")).body).toMatchObject({ raw: null });

    const readOnly = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "project:read");
    expect((await api("PUT", "/api/0/projects/acme/shop/ownership/", { raw: "" }, readOnly)).status).toBe(403);

    const saved = await api("PUT", "/api/0/projects/acme/shop/ownership/", {
      raw: "# checkout belongs to payments\npath:src/** dev@example.com\npath:*/checkout/* #payments",
      fallthrough: false,
      autoAssignment: "Auto Assign to Issue Owner",
    });
    expect(saved).toMatchObject({
      status: 200,
      body: {
        fallthrough: false,
        autoAssignment: "Auto Assign to Issue Owner",
        schema: {
          $version: 1,
          rules: [
            { matcher: { type: "path", pattern: "src/**" }, owners: [{ type: "user", identifier: "dev@example.com" }] },
            { matcher: { type: "path", pattern: "*/checkout/*" }, owners: [{ type: "team", identifier: "payments" }] },
          ],
        },
      },
    });
    expect((await api("GET", "/api/0/projects/acme/shop/ownership/")).body.raw).toContain("path:*/checkout/* #payments");
  });

  test("a new issue in src/checkout/pay.js is assigned to #payments by the rule", async () => {
    const { issue } = await sendCheckoutError("CardDeclined", "shop@0.9.0");
    expect(issue.assignedTo).toMatchObject({ type: "team", name: "payments" });
    const activity = (await api("GET", `/api/0/organizations/acme/issues/${issue.id}/activities/`)).body.activity as Json[];
    const assigned = activity.find((a) => a.type === "assigned");
    expect(JSON.stringify(assigned)).toContain("path:*/checkout/* #payments");
  });

  test("suspect commits: the release commit that touched pay.js names its author; auto-assign to that member", async () => {
    const sha = "4f2a9c1e0b7d3a6f8e9c2b1a0d4e5f6a7b8c9d0e";
    const created = await api("POST", "/api/0/organizations/acme/releases/", {
      version: "shop@1.0.0",
      projects: ["shop"],
      commits: [
        {
          id: "0000aaaa",
          repository: "acme/shop",
          message: "Docs",
          author_email: "writer@example.com",
          patch_set: [{ path: "README.md", type: "M" }],
        },
        {
          id: sha,
          repository: "acme/shop",
          message: "Round card amounts to cents",
          author_name: "Dev",
          author_email: "Dev@Example.com",
          timestamp: "2026-11-20T10:00:00Z",
          patch_set: [
            { path: "src/checkout/pay.js", type: "M" },
            { path: "src/checkout/cart.js", type: "A" },
          ],
        },
      ],
    });
    expect(created.status).toBe(201);
    expect(
      (await api("PUT", "/api/0/projects/acme/shop/ownership/", { autoAssignment: "Auto Assign to Suspect Commits" })).body,
    ).toMatchObject({ autoAssignment: "Auto Assign to Suspect Commits", fallthrough: false });

    const { issue, eventId } = await sendCheckoutError("AmountMismatch", "shop@1.0.0");
    expect(issue.assignedTo).toMatchObject({ type: "user", email: "dev@example.com" });
    const committers = await api("GET", `/api/0/projects/acme/shop/events/${eventId}/committers/`);
    expect(committers.status).toBe(200);
    expect(committers.body.committers).toEqual([
      {
        author: expect.objectContaining({ email: "dev@example.com", name: "Dev" }),
        commits: [
          expect.objectContaining({ id: sha, message: "Round card amounts to cents", repository: { name: "acme/shop" }, score: 3 }),
        ],
      },
    ]);
    const activity = (await api("GET", `/api/0/organizations/acme/issues/${issue.id}/activities/`)).body.activity as Json[];
    expect(JSON.stringify(activity.find((a) => a.type === "assigned"))).toContain(sha);
    expect((await api("GET", "/api/0/projects/acme/shop/events/00000000000000000000000000000000/committers/")).status).toBe(404);
  });

  test("a commit of 10,000 files is kept; 10,001 is refused and nothing changes", async () => {
    const files = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `src/generated/f${i}.js`, type: "A" }));
    const big = await api("PUT", "/api/0/organizations/acme/releases/shop@1.0.0/", {
      commits: [{ id: "bbbb0001", repository: "acme/shop", author_email: "dev@example.com", patch_set: files(10_000) }],
    });
    expect(big.status).toBe(200);
    const tooBig = await api("PUT", "/api/0/organizations/acme/releases/shop@1.0.0/", {
      commits: [{ id: "bbbb0002", repository: "acme/shop", patch_set: files(10_001) }],
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error).toMatchObject({ code: "validation_failed", fields: [{ field: "commits.0.patch_set" }] });
    const commits = (await api("GET", "/api/0/organizations/acme/releases/shop@1.0.0/commits/")).body as unknown as Json[];
    expect(commits.map((c) => c.id)).toEqual(["bbbb0001"]);
  });

  test("CODEOWNERS through Sentry's API: posted, unmatched names answered, mapped with external-teams; 1 MB refused whole", async () => {
    const raw = "/src/checkout/ @acme/payments @pat\n*.md writer@example.com";
    const huge = await api("POST", "/api/0/projects/acme/shop/codeowners/", { raw: `${raw}\n${"#".repeat(1_048_576)}` });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({ code: "payload_too_large", message: expect.stringContaining("Nothing was saved") });
    const bad = await api("POST", "/api/0/projects/acme/shop/codeowners/", { raw: "src/ @ok\nlib/ not-an-owner" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "validation_failed", fields: [{ field: "raw.2" }] });
    expect((await api("GET", "/api/0/projects/acme/shop/codeowners/")).body).toEqual([]);

    const created = await api("POST", "/api/0/projects/acme/shop/codeowners/", { raw, codeMappingId: "7" });
    expect(created).toMatchObject({
      status: 201,
      body: {
        raw,
        codeMappingId: "7",
        errors: {
          missing_external_teams: ["@acme/payments"],
          missing_external_users: ["@pat"],
          missing_user_emails: ["writer@example.com"],
        },
      },
    });
    const teams = (await api("GET", "/api/0/organizations/acme/teams/")).body as unknown as Json[];
    const payments = teams.find((t) => t.slug === "payments") as Json;
    const mapped = await api("POST", "/api/0/organizations/acme/external-teams/", {
      externalName: "@acme/payments",
      provider: "github",
      integrationId: 1,
      teamId: Number(payments.id),
    });
    expect(mapped).toMatchObject({
      status: 201,
      body: { externalName: "@acme/payments", provider: "github", teamId: String(payments.id) },
    });
    expect((await api("POST", "/api/0/organizations/acme/external-users/", { externalName: "@pat", userId: "nobody" })).status).toBe(400);
    const [listed] = (await api("GET", "/api/0/projects/acme/shop/codeowners/")).body as unknown as Json[];
    expect(listed?.errors).toMatchObject({ missing_external_teams: [], missing_external_users: ["@pat"] });
    const readOnly = await server.cli("token", "create", "--email", "dev@example.com", "--scopes", "project:read");
    expect((await api("POST", "/api/0/projects/acme/shop/codeowners/", { raw }, readOnly)).status).toBe(403);
    expect((await api("DELETE", `/api/0/projects/acme/shop/codeowners/${listed?.id}/`)).status).toBe(204);
    expect((await api("GET", "/api/0/projects/acme/shop/codeowners/")).body).toEqual([]);
  });
});
