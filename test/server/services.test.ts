/**
 * The application services on both databases: first-run setup with its validation rules, and
 * authorization — one organization never sees another's data; tokens carry scopes.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { AppError } from "../../src/core/errors";
import { createLogger } from "../../src/log";
import { createAuth, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { Viewer } from "../../src/server/types";
import { dialects, openTestDb } from "../helpers/test-db";

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).code;
  }
}

describe.each(await dialects())("services on %s", (dialect) => {
  let services: ReturnType<typeof createServices>;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const t = await openTestDb(dialect);
    close = t.close;
    const config = loadConfig({ PUBLIC_URL: "http://127.0.0.1:9999", DATA_DIR: t.info.dataDir });
    const secret = "test-secret-test-secret-test-secret";
    const auth = createAuth(t.db, config, secret);
    await migrateAuth(t.db, config, secret);
    services = createServices({ db: t.db, auth, config, log: createLogger("silent") });
  });
  afterAll(async () => close());

  test("setup validates every field and names the rule", async () => {
    expect(await services.setup.isDone()).toBe(false);
    try {
      await services.setup.createOwner({ name: "", email: "not-an-email", password: "short", orgName: "Acme", orgSlug: "Bad Slug!" });
      expect.unreachable();
    } catch (e) {
      expect((e as AppError).code).toBe("validation_failed");
      const fields = Object.fromEntries(((e as AppError).fields ?? []).map((f) => [f.field, f.message]));
      expect(Object.keys(fields).sort()).toEqual(["email", "name", "orgSlug", "password"]);
      expect(fields.password).toMatch(/12 characters/);
    }
    expect(
      await codeOf(
        services.setup.createOwner({ name: "A", email: "a@example.com", password: "password1234", orgName: "Acme", orgSlug: "acme" }),
      ),
    ).toBe("validation_failed");
  });

  test("setup creates the owner once; afterwards it is refused", async () => {
    const r = await services.setup.createOwner({
      name: "Ada",
      email: "ada@example.com",
      password: "a sturdy passphrase",
      orgName: "Acme",
      orgSlug: "acme",
    });
    expect(r.orgSlug).toBe("acme");
    expect(await services.setup.isDone()).toBe(true);
    expect(
      await codeOf(
        services.setup.createOwner({
          name: "Eve",
          email: "eve@example.com",
          password: "a sturdy passphrase",
          orgName: "Evil",
          orgSlug: "evil",
        }),
      ),
    ).toBe("setup_done");
  });

  test("organizations are isolated: a member of one never reads another", async () => {
    const a = await services.operator.createOwner({ email: "owner-a@example.com", password: "a sturdy passphrase", orgSlug: "org-a" });
    const b = await services.operator.createOwner({ email: "owner-b@example.com", password: "a sturdy passphrase", orgSlug: "org-b" });
    await services.operator.createProject({ orgSlug: "org-b", name: "private" });
    const viewerA: Viewer = { userId: a.userId, email: "owner-a@example.com", name: "A" };
    const viewerB: Viewer = { userId: b.userId, email: "owner-b@example.com", name: "B" };

    expect((await services.orgs.listForViewer(viewerA)).map((o) => o.slug)).toEqual(["org-a"]);
    expect(await codeOf(services.orgs.get(viewerA, "org-b"))).toBe("not_found");
    // What a screen asks before it shows a control: the owner may everything at home, nothing elsewhere.
    const can = await services.orgs.can(viewerA, "org-a");
    expect(Object.values(can).every(Boolean)).toBe(true);
    expect(await codeOf(services.orgs.can(viewerA, "org-b"))).toBe("not_found");
    // A personal token narrows it to its scopes: the screens would show what the token may do.
    const tokenCan = await services.orgs.can({ ...viewerA, scopes: ["event:read", "event:write"] }, "org-a");
    expect(tokenCan["issue.update"]).toBe(true);
    expect(tokenCan["project.write"]).toBe(false);
    expect(await codeOf(services.projects.list(viewerA, "org-b"))).toBe("not_found");
    expect(await codeOf(services.issues.list(viewerA, "org-b", {}))).toBe("not_found");
    expect(await codeOf(services.issues.get(viewerA, "org-b", 1))).toBe("not_found");
    expect((await services.projects.list(viewerB, "org-b")).map((p) => p.slug)).toEqual(["private"]);
    // An issue id from another org is "not found", not "forbidden": existence is not revealed.
    expect(await codeOf(services.events.latestForIssue(viewerA, "org-a", 1))).toBe("not_found");
  });

  test("tokens carry scopes and are stored hashed", async () => {
    const { token } = await services.operator.createToken({ email: "owner-a@example.com", scopes: ["org:read"] });
    const viewer = await services.session.viewerFromToken(`Bearer ${token}`);
    expect(viewer?.scopes).toEqual(["org:read"]);
    expect(await codeOf(services.projects.list(viewer as Viewer, "org-a"))).toBe("forbidden");
    expect(await services.session.viewerFromToken(`Bearer ${token}x`)).toBeNull();
    expect(await services.session.viewerFromToken("Basic abc")).toBeNull();
    expect(await codeOf(services.operator.createToken({ email: "owner-a@example.com", scopes: ["root"] }))).toBe("validation_failed");
  });
});
