/**
 * Sessions end for real, against the built server over HTTP: a password reset through the CLI
 * (`errata user create` for an existing user) refuses the old session cookie on the next request
 * and closes its open live stream (`/[org]/issues/live`); signing out closes the stream too.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServer, type TestServer } from "../helpers/server";

const PASSWORD = "correct horse battery";

describe("sessions end with a password reset or sign-out, live streams included", () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    await server.cli("user", "create", "--email", "owner@example.com", "--password", PASSWORD, "--org", "acme");
  });
  afterAll(async () => server?.stop());

  async function signIn(password: string): Promise<string> {
    const res = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify({ email: "owner@example.com", password }),
    });
    expect(res.status).toBe(200);
    return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  }

  /** Opens the live stream; resolves `ended` when the server closes it. */
  async function openLive(cookie: string): Promise<{ ended: Promise<void>; abort(): void }> {
    const ctrl = new AbortController();
    const res = await fetch(`${server.url}/acme/issues/live?since=0`, { headers: { cookie }, signal: ctrl.signal });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain("retry:");
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return;
    })();
    return { ended, abort: () => ctrl.abort() };
  }

  const apiStatus = async (cookie: string) => (await fetch(`${server.url}/api/0/organizations/acme/`, { headers: { cookie } })).status;

  test("a CLI password reset refuses the old session and closes its live stream", async () => {
    const cookie = await signIn(PASSWORD);
    expect(await apiStatus(cookie)).toBe(200);
    const live = await openLive(cookie);
    await server.cli("user", "create", "--email", "owner@example.com", "--password", "a brand new password", "--org", "acme");
    await live.ended;
    expect(await apiStatus(cookie)).toBe(401);
    expect(await apiStatus(await signIn("a brand new password"))).toBe(200);
  });

  test("signing out closes the live stream", async () => {
    const cookie = await signIn("a brand new password");
    const live = await openLive(cookie);
    const out = await fetch(`${server.url}/api/auth/sign-out`, {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(out.status).toBe(200);
    await live.ended;
    expect(await apiStatus(cookie)).toBe(401);
  });

  test("Better Auth's own account endpoints are closed: no password change that keeps other sessions", async () => {
    const cookie = await signIn("a brand new password");
    const other = await signIn("a brand new password");
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}/api/auth/${path}`, {
        method: "POST",
        headers: { cookie, origin: server.url, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const change = await post("change-password", {
      currentPassword: "a brand new password",
      newPassword: "kept other sessions alive",
      revokeOtherSessions: false,
    });
    expect(change.status).toBe(404);
    expect(await change.json()).toMatchObject({ error: { code: "not_found" } });
    expect((await post("update-user", { name: "renamed over HTTP" })).status).toBe(404);
    expect((await post("revoke-sessions", {})).status).toBe(404);
    // Nothing changed: the old password still signs in and both sessions still work.
    expect(await apiStatus(await signIn("a brand new password"))).toBe(200);
    expect(await apiStatus(other)).toBe(200);
  });
});
