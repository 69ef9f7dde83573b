/**
 * CSRF against the built server: requests forged the way a page on another port of the same host
 * would send them (the browser attaches the SameSite=Lax cookie, since it is the same site) —
 * text/plain and multipart bodies, server actions replayed by id, Better Auth endpoints — are
 * refused; the same requests from Errata's own origin with JSON, and bearer-token calls, work.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { eventually, ROOT, startServer, type TestServer } from "../helpers/server.js";

const PASSWORD = "correct horse battery";

/** The id of one server action of the build, from Next's manifest (what a form posts as Next-Action). */
function anyServerActionId(): string {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, ".next/server/server-reference-manifest.json"), "utf8")) as {
    node: Record<string, unknown>;
  };
  const id = Object.keys(manifest.node)[0];
  if (!id) throw new Error("the build has no server actions");
  return id;
}

describe("CSRF: cookie-authenticated mutations need our exact origin", () => {
  let server: TestServer;
  let cookie: string;
  let token: string;
  let issueId: string;
  let foreign: string;

  beforeAll(async () => {
    server = await startServer({ dialect: "sqlite" });
    // A page on another port of the same host: same site, foreign origin.
    foreign = `http://127.0.0.1:${Number(new URL(server.url).port) + 1}`;
    await server.cli("user", "create", "--email", "ann@example.com", "--password", PASSWORD, "--org", "acme");
    const dsn = await server.cli("project", "create", "--org", "acme", "--name", "web", "--platform", "javascript");
    token = await server.cli(
      "token",
      "create",
      "--email",
      "ann@example.com",
      "--scopes",
      "org:read,project:read,event:read,event:write,project:releases",
    );
    await server.cli("send-test-event", "--dsn", dsn, "--message", "csrf target");
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "ann@example.com", password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect(cookie).toMatch(/better-auth\.session_token=/);
    issueId = await eventually(
      async () => {
        const list = (await (
          await fetch(`${server.url}/api/0/projects/acme/web/issues/`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as Array<{ id: string }>;
        return list[0]?.id;
      },
      30_000,
      "the test issue",
    );
  });
  afterAll(async () => server?.stop());

  const comments = () => `${server.url}/api/0/organizations/acme/issues/${issueId}/comments/`;
  async function commentTexts(): Promise<string[]> {
    const res = await fetch(comments(), { headers: { authorization: `Bearer ${token}` } });
    return ((await res.json()) as Array<{ data: { text: string } }>).map((c) => c.data.text);
  }
  /** Creates a release with the token: 201 when it is new, 208 when it already existed (as Sentry). */
  async function createReleaseWithToken(version: string): Promise<number> {
    const res = await fetch(`${server.url}/api/0/organizations/acme/releases/`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ version, projects: ["web"] }),
    });
    return res.status;
  }

  test("a text/plain comment from another port, or with no Origin, is refused and not stored", async () => {
    for (const origin of [foreign, undefined]) {
      const res = await fetch(comments(), {
        method: "POST",
        headers: { cookie, "content-type": "text/plain;charset=UTF-8", ...(origin ? { origin } : {}) },
        body: JSON.stringify({ text: "forged comment" }),
      });
      expect(res.status).toBe(403);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("foreign_origin");
    }
    expect(await commentTexts()).not.toContain("forged comment");
  });

  test("REST with the cookie from our own origin still needs JSON; with JSON it works", async () => {
    const plain = await fetch(comments(), {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "text/plain" },
      body: JSON.stringify({ text: "plain comment" }),
    });
    expect(plain.status).toBe(415);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe("json_required");
    const json = await fetch(comments(), {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "application/json" },
      body: JSON.stringify({ text: "own comment" }),
    });
    expect(json.status).toBe(201);
    const texts = await commentTexts();
    expect(texts).toContain("own comment");
    expect(texts).not.toContain("plain comment");
  });

  test("bearer tokens are unaffected (no Origin, any content type)", async () => {
    const res = await fetch(comments(), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "text/plain" },
      body: JSON.stringify({ text: "token comment" }),
    });
    expect(res.status).toBe(201);
  });

  test("forged release creation (text/plain) and release file upload (multipart) are refused", async () => {
    const create = await fetch(`${server.url}/api/0/organizations/acme/releases/`, {
      method: "POST",
      headers: { cookie, origin: foreign, "content-type": "text/plain" },
      body: JSON.stringify({ version: "forged@1.0.0", projects: ["web"] }),
    });
    expect(create.status).toBe(403);
    // Had the forgery worked, the release would exist now and this would answer 208.
    expect(await createReleaseWithToken("forged@1.0.0")).toBe(201);

    // The release exists (created with the token) so only the origin check stands in the way.
    expect(await createReleaseWithToken("real@1.0.0")).toBe(201);
    const files = `${server.url}/api/0/projects/acme/web/releases/real@1.0.0/files/`;
    for (const origin of [foreign, server.url]) {
      const form = new FormData();
      form.set("name", "~/app.js");
      form.set("file", new Blob(["console.log('forged')"]), "app.js");
      const res = await fetch(files, { method: "POST", headers: { cookie, origin }, body: form });
      // Another origin: refused outright; our own origin with the cookie: multipart is not JSON.
      expect(res.status).toBe(origin === foreign ? 403 : 415);
    }
    // Nothing was stored: the same upload with the token is not a duplicate (409) but new (201).
    const form = new FormData();
    form.set("name", "~/app.js");
    form.set("file", new Blob(["console.log('real')"]), "app.js");
    const real = await fetch(files, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    expect(real.status).toBe(201);
  });

  test("a server action replayed by id from another origin is refused before it runs", async () => {
    const res = await fetch(`${server.url}/acme/issues`, {
      method: "POST",
      headers: { cookie, origin: foreign, "next-action": anyServerActionId(), "content-type": "text/plain;charset=UTF-8" },
      body: JSON.stringify([issueId]),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("foreign_origin");
  });

  test("Better Auth endpoints: a forged sign-out leaves the session alive; a forged sign-in is refused", async () => {
    const signOut = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie, origin: foreign, "content-type": "text/plain" },
      body: "{}",
    });
    expect(signOut.status).toBe(403);
    const session = await fetch(`${server.url}/api/auth/get-session`, { headers: { cookie } });
    expect(((await session.json()) as { user?: { email: string } } | null)?.user?.email).toBe("ann@example.com");

    const signIn = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin: foreign, "content-type": "text/plain" },
      body: JSON.stringify({ email: "ann@example.com", password: PASSWORD }),
    });
    expect(signIn.status).toBe(403);
    expect(signIn.headers.getSetCookie()).toEqual([]);
  });
});
