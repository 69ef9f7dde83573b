/**
 * "Forgot password" on both databases, mailed through a real SMTP server (smtp-server, parsed with
 * mailparser): the same answer for known and unknown addresses, the link stored only as a hash,
 * single use (a second link of the account dies with the first), expiry, a per-account cap on
 * mail, and the reset ends every session of the account. An account made through SSO (no
 * password) gets one. API tokens survive a reset (as GitHub's do); afterwards the account page's
 * notice counts the older ones and "revoke all tokens" removes the viewer's own personal tokens only.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithoutPassword, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { eventually } from "../helpers/server";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

let smtp: SmtpInbox;
beforeAll(async () => {
  smtp = await startSmtpInbox();
});
afterAll(async () => smtp.close());
const mailsTo = (address: string) => smtp.mailsTo(address);

async function nextLink(address: string, count: number): Promise<string> {
  await eventually(async () => mailsTo(address).length >= count, 20_000, `reset mail #${count} to ${address}`);
  const link = mailsTo(address)[count - 1]?.text?.match(/https:\/\/errata\.example\/reset-password\/(\S+)/);
  if (!link) throw new Error(`no reset link to ${address}`);
  return link[1] as string;
}

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

describe.each(await dialects())("password reset by email on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: ReturnType<typeof createServices>;
  let auth: ReturnType<typeof createAuth>;
  let clock = Date.UTC(2026, 4, 10, 12, 0, 0);

  beforeAll(async () => {
    ({ db, close } = await openTestDb(dialect));
    const config = loadConfig({
      DATA_DIR: tempDir(),
      LOG_LEVEL: "silent",
      PUBLIC_URL: "https://errata.example",
      ...smtp.env,
    });
    auth = createAuth(db, config, "x".repeat(32));
    await migrateAuth(db, config, "x".repeat(32));
    s = createServices({ db, auth, config, log: createLogger("silent"), now: () => clock });
  });
  afterAll(async () => close());

  async function signIn(email: string, password: string): Promise<string | null> {
    const res = await auth.api.signInEmail({ body: { email, password }, asResponse: true });
    return res.ok ? res.headers.get("set-cookie") : null;
  }
  const sessionOf = async (cookie: string) => auth.api.getSession({ headers: new Headers({ cookie }) });

  test("the link is mailed, stored hashed, works once, and ends every session of the account", async () => {
    const address = `rita-${dialect}@example.com`;
    await createUserWithPassword(auth, { email: address, password: "the old password 1", name: "Rita" });
    const cookie = await signIn(address, "the old password 1");
    expect(cookie).not.toBeNull();
    expect(await sessionOf(cookie as string)).not.toBeNull();

    // Known and unknown addresses get the same (empty) answer; only the known one gets mail.
    await s.passwordReset.request(address.toUpperCase());
    await s.passwordReset.request(`nobody-${dialect}@example.com`);
    const token = await nextLink(address, 1);
    expect(mailsTo(`nobody-${dialect}@example.com`)).toHaveLength(0);
    expect(mailsTo(address)[0]?.subject).toBe("Reset your Errata password");

    const rows = await db.kysely.selectFrom("password_resets").select(["token_hash", "user_id"]).execute();
    expect(rows.map((r) => r.token_hash)).toContain(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);

    // A second link of the same account dies when the first is used.
    await s.passwordReset.request(address);
    const second = await nextLink(address, 2);
    expect(await s.passwordReset.check(token)).toEqual({ email: address });
    expect(await codeOf(s.passwordReset.reset(token, "short"))).toBe("validation_failed");
    expect(await s.passwordReset.reset(token, "a brand new password")).toEqual({ email: address });

    expect(await sessionOf(cookie as string)).toBeNull();
    expect(await signIn(address, "the old password 1")).toBeNull();
    expect(await signIn(address, "a brand new password")).not.toBeNull();
    expect(await codeOf(s.passwordReset.reset(token, "another new password"))).toBe("reset_invalid");
    expect(await codeOf(s.passwordReset.check(second))).toBe("reset_invalid");
    expect(await codeOf(s.passwordReset.reset("not-a-real-token", "another new password"))).toBe("reset_invalid");
  });

  test("links expire, and at most three are mailed per account per hour", async () => {
    const address = `ed-${dialect}@example.com`;
    const ed = await createUserWithPassword(auth, { email: address, password: "the old password 2", name: "Ed" });
    await s.passwordReset.request(address);
    const token = await nextLink(address, 1);
    clock += 61 * 60_000;
    expect(await codeOf(s.passwordReset.check(token))).toBe("reset_invalid");
    expect(await codeOf(s.passwordReset.reset(token, "a brand new password"))).toBe("reset_invalid");

    for (let i = 0; i < 5; i++) await s.passwordReset.request(address);
    await nextLink(address, 4);
    const rows = await db.kysely.selectFrom("password_resets").select("id").where("user_id", "=", ed.id).execute();
    expect(rows).toHaveLength(4); // one expired + three in this hour
    expect(mailsTo(address)).toHaveLength(4);
  });

  test("an account made through SSO (no password) can set one", async () => {
    const address = `sso-${dialect}@example.com`;
    await createUserWithoutPassword(auth, { email: address, name: "Sso" });
    expect(await signIn(address, "a password for sso")).toBeNull();
    await s.passwordReset.request(address);
    await s.passwordReset.reset(await nextLink(address, 1), "a password for sso");
    expect(await signIn(address, "a password for sso")).not.toBeNull();
  });

  test("tokens survive a reset; the account page says so, and revoke all removes only the viewer's personal tokens", async () => {
    const address = `tess-${dialect}@example.com`;
    const tess = await createUserWithPassword(auth, { email: address, password: "the old password 3", name: "Tess" });
    const other = await createUserWithPassword(auth, {
      email: `olaf-${dialect}@example.com`,
      password: "the old password 4",
      name: "Olaf",
    });
    const viewer: Viewer = { userId: tess.id, email: address, name: "Tess" };
    const olaf: Viewer = { userId: other.id, email: `olaf-${dialect}@example.com`, name: "Olaf" };
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: `tess-${dialect}`, name: "Tess", now: 1 });
      await upsertMember(tx, { orgId: org.id, userId: tess.id, role: "owner", now: 1 });
      await upsertMember(tx, { orgId: org.id, userId: other.id, role: "owner", now: 1 });
    });
    const scopes = ["org:read", "project:read"];
    const mine = [
      await s.tokens.createPersonal(viewer, { name: "ci", scopes }),
      await s.tokens.createPersonal(viewer, { name: "laptop", scopes }),
    ];
    const orgToken = await s.tokens.createOrg(viewer, `tess-${dialect}`, { name: "deploys" });
    const olafs = await s.tokens.createPersonal(olaf, { name: "olaf's", scopes });
    const works = async (secret: string) => (await s.session.viewerFromToken(`Bearer ${secret}`)) !== null;
    expect(await s.tokens.resetNotice(viewer)).toBeNull();

    clock += 60_000;
    await s.passwordReset.request(address);
    await s.passwordReset.reset(await nextLink(address, 1), "a brand new password 3");
    const resetAt = clock;
    // The tokens still work after the reset; the account page says so and counts them.
    for (const t of [...mine, orgToken]) expect(await works(t.secret)).toBe(true);
    expect(await s.tokens.resetNotice(viewer)).toEqual({ resetAt, olderTokens: 2 });
    expect(await s.tokens.resetNotice(olaf)).toBeNull();
    // A token made after the reset is not counted among those older than it.
    clock += 60_000;
    const after = await s.tokens.createPersonal(viewer, { name: "after", scopes });
    expect(await s.tokens.resetNotice(viewer)).toEqual({ resetAt, olderTokens: 2 });
    // Only from a browser session: a token cannot revoke its siblings.
    const asToken = await s.session.viewerFromToken(`Bearer ${mine[0]?.secret}`);
    expect(await codeOf(s.tokens.revokeAllPersonal(asToken as Viewer))).toBe("forbidden");

    expect(await s.tokens.revokeAllPersonal(viewer)).toBe(3);
    for (const t of [...mine, after]) expect(await works(t.secret)).toBe(false);
    // Not the organization's token, not another person's.
    expect(await works(orgToken.secret)).toBe(true);
    expect(await works(olafs.secret)).toBe(true);
    expect(await s.tokens.listPersonal(viewer)).toEqual([]);
    expect(await s.tokens.resetNotice(viewer)).toBeNull();
  });
});
