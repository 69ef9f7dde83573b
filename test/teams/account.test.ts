/**
 * The account services on both databases: sessions listed with the current one marked; a password
 * change needs the current password and ends every other session (not this one); sign out
 * everywhere ends them all; renaming; API tokens cannot touch the account.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { AppServices } from "../../src/server/services";
import type { Viewer } from "../../src/server/types";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("account on %s", (dialect) => {
  let close: () => Promise<void>;
  let s: AppServices;
  let auth: ReturnType<typeof createAuth>;
  let me: Viewer;

  beforeAll(async () => {
    const t = await openTestDb(dialect);
    close = t.close;
    const config = loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: "silent", PUBLIC_URL: "https://errata.example" });
    auth = createAuth(t.db, config, "x".repeat(32));
    await migrateAuth(t.db, config, "x".repeat(32));
    s = createServices({ db: t.db, auth, config, log: createLogger("silent") });
    const u = await createUserWithPassword(auth, { email: "me@example.com", password: "correct horse battery", name: "Me" });
    me = { userId: u.id, email: "me@example.com", name: "Me" };
  });
  afterAll(async () => close());

  async function session(password: string): Promise<Headers> {
    const res = await auth.api.signInEmail({ body: { email: "me@example.com", password }, asResponse: true });
    expect(res.status).toBe(200);
    return new Headers({ cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] as string });
  }

  test("password change: needs the current one, ends the other sessions, keeps this one", async () => {
    const here = await session("correct horse battery");
    const there = await session("correct horse battery");
    const page = await s.account.get(me, here);
    expect(page.sessions).toHaveLength(2);
    expect(page.sessions.filter((x) => x.current)).toHaveLength(1);
    expect(JSON.stringify(page)).not.toContain((here.get("cookie") ?? "").split("=")[1]?.split(".")[0]);

    expect(await codeOf(s.account.changePassword(me, here, { current: "wrong password!", next: "a brand new password" }))).toBe(
      "validation_failed",
    );
    expect(await codeOf(s.account.changePassword(me, here, { current: "correct horse battery", next: "short" }))).toBe("validation_failed");
    expect(await s.session.viewerFromHeaders(there)).not.toBeNull();
    await s.account.changePassword(me, here, { current: "correct horse battery", next: "a brand new password" });
    expect(await s.session.viewerFromHeaders(there)).toBeNull();
    expect(await s.session.viewerFromHeaders(here)).not.toBeNull();
    await session("a brand new password");
  });

  test("rename, sign out everywhere, and tokens kept out", async () => {
    await s.account.rename(me, "Renamed");
    const here = await session("a brand new password");
    expect((await s.session.viewerFromHeaders(here))?.name).toBe("Renamed");
    expect(await codeOf(s.account.rename(me, ""))).toBe("validation_failed");
    const token = { ...me, scopes: ["org:read", "member:write"] };
    expect(await codeOf(s.account.get(token, here))).toBe("forbidden");
    expect(await codeOf(s.account.signOutEverywhere(token))).toBe("forbidden");
    await s.account.signOutEverywhere(me);
    expect(await s.session.viewerFromHeaders(here)).toBeNull();
  });
});
