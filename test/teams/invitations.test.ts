/**
 * Invitations on both databases, mailed through a real SMTP server (smtp-server, parsed with
 * mailparser): the link in the mail works once, is stored only as a hash, expires after 7 days,
 * dies on revoke and on resend; a new person picks a name and password, an existing account joins
 * only when signed in. Removing a member and resetting a password (the CLI's too) end sessions.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { createLogger } from "../../src/log";
import { createAuth, createUserWithPassword, migrateAuth } from "../../src/server/auth/auth";
import { createServices } from "../../src/server/create-services";
import type { Viewer } from "../../src/server/types";
import type { Db } from "../../src/storage/db";
import { writeTx } from "../../src/storage/dialect";
import { insertOrg, upsertMember } from "../../src/storage/orgs/orgs";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects, openTestDb, tempDir } from "../helpers/test-db";

const DAY = 24 * 3600 * 1000;

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  try {
    await p;
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
}

let smtp: SmtpInbox;
let inbox: SmtpInbox["mails"];
beforeAll(async () => {
  smtp = await startSmtpInbox();
  inbox = smtp.mails;
});
afterAll(async () => smtp.close());

function linkTo(address: string): string {
  const mail = smtp.mailsTo(address).at(-1);
  const link = mail?.text?.match(/https:\/\/errata\.example\/invite\/(\S+)/);
  if (!link) throw new Error(`no invitation mail to ${address}`);
  return link[1] as string;
}

describe.each(await dialects())("invitations on %s", (dialect) => {
  let db: Db;
  let close: () => Promise<void>;
  let s: ReturnType<typeof createServices>;
  let auth: ReturnType<typeof createAuth>;
  let clock = Date.UTC(2026, 4, 10, 12, 0, 0);
  let owner: Viewer;

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
    const u = await createUserWithPassword(auth, { email: "owner@example.com", password: "correct horse battery", name: "Owner" });
    owner = { userId: u.id, email: "owner@example.com", name: "Owner" };
    await writeTx(db, async (tx) => {
      const org = await insertOrg(tx, { slug: `acme-${dialect}`, name: "Acme", now: 1 });
      await upsertMember(tx, { orgId: org.id, userId: u.id, role: "owner", now: 1 });
    });
  });
  afterAll(async () => close());

  const org = () => `acme-${dialect}`;

  test("an emailed invitation: the link works once, is stored hashed, and lands the new admin in the org", async () => {
    const address = `ada-${dialect}@example.com`;
    const res = await s.members.invite(owner, org(), { email: address, role: "admin" });
    expect(res).toMatchObject({ emailed: true, invitation: { email: address, role: "admin", state: "pending" } });
    const token = linkTo(address);
    expect(res.link).toBe(`https://errata.example/invite/${token}`);
    const mail = inbox.findLast((m) => m.subject?.includes("Acme"));
    expect(mail?.from?.text).toContain("errata@example.com");

    const rows = await db.kysely.selectFrom("invitations").select("token_hash").execute();
    expect(rows.map((r) => r.token_hash)).toContain(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(rows)).not.toContain(token);

    expect(await s.members.preview(token)).toMatchObject({
      orgSlug: org(),
      orgName: "Acme",
      email: address,
      role: "admin",
      existingUser: false,
    });
    expect(await codeOf(s.members.accept(token, null, { name: "Ada", password: "short" }))).toBe("validation_failed");
    expect(await s.members.accept(token, null, { name: "Ada", password: "a long enough password" })).toEqual({
      orgSlug: org(),
      email: address,
    });
    expect(await codeOf(s.members.accept(token, null, { name: "Eve", password: "a long enough password" }))).toBe("invitation_invalid");
    expect(await codeOf(s.members.preview(token))).toBe("invitation_invalid");

    const page = await s.members.page(owner, org());
    expect(page.members.find((m) => m.email === address)).toMatchObject({ name: "Ada", role: "admin" });
    expect(page.invitations.find((i) => i.email === address)?.state).toBe("accepted");
    // The new account signs in with the password it chose.
    const signIn = await auth.api.signInEmail({ body: { email: address, password: "a long enough password" }, asResponse: true });
    expect(signIn.status).toBe(200);
  });

  test("a link invitation (no mail) expires after 7 days; revoke and resend kill the old link", async () => {
    const before = inbox.length;
    const a = await s.members.invite(owner, org(), { email: `link-${dialect}@example.com`, role: "member", send: false });
    expect(a.emailed).toBe(false);
    expect(inbox.length).toBe(before);
    const token = a.link.split("/").at(-1) as string;
    clock += 7 * DAY + 1;
    expect(await codeOf(s.members.preview(token))).toBe("invitation_invalid");
    expect((await s.members.page(owner, org())).invitations.find((i) => i.id === a.invitation.id)?.state).toBe("expired");

    const again = await s.members.resend(owner, org(), a.invitation.id, { send: false });
    const fresh = again.link.split("/").at(-1) as string;
    expect(fresh).not.toBe(token);
    expect((await s.members.preview(fresh)).role).toBe("member");
    await s.members.revoke(owner, org(), a.invitation.id);
    expect(await codeOf(s.members.preview(fresh))).toBe("invitation_invalid");
    expect((await s.members.page(owner, org())).invitations.find((i) => i.id === a.invitation.id)?.state).toBe("revoked");
    expect(await codeOf(s.members.resend(owner, org(), a.invitation.id))).toBe("invitation_invalid");
    expect(await codeOf(s.members.preview("not-a-token"))).toBe("invitation_invalid");
  });

  test("an existing account must sign in to accept, then joins with the invited role", async () => {
    const email = `bob-${dialect}@example.com`;
    const bob = await createUserWithPassword(auth, { email, password: "correct horse battery", name: "Bob" });
    const { link } = await s.members.invite(owner, org(), { email, role: "viewer", send: false });
    const token = link.split("/").at(-1) as string;
    expect((await s.members.preview(token)).existingUser).toBe(true);
    expect(await codeOf(s.members.accept(token, null, { name: "X", password: "a long enough password" }))).toBe("unauthenticated");
    await s.members.accept(token, { userId: bob.id, email, name: "Bob" });
    expect((await s.orgs.get({ userId: bob.id, email, name: "Bob" }, org())).role).toBe("viewer");
    expect(await codeOf(s.members.invite(owner, org(), { email, role: "member" }))).toBe("conflict");
  });

  test("an invitation is bound to its address: another signed-in account sees whom it is for and changes nothing", async () => {
    const invited = `dora-${dialect}@example.com`;
    const mallory = await createUserWithPassword(auth, {
      email: `mallory-${dialect}@example.com`,
      password: "correct horse battery",
      name: "Mallory",
    });
    const asMallory = { userId: mallory.id, email: `mallory-${dialect}@example.com`, name: "Mallory" };
    const { link } = await s.members.invite(owner, org(), { email: invited, role: "admin", send: false });
    const token = link.split("/").at(-1) as string;
    const refused = await s.members.accept(token, asMallory).catch((e: unknown) => e as { code: string; message: string });
    expect(refused).toMatchObject({ code: "invitation_other_account" });
    expect((refused as { message: string }).message).toContain(`This invitation is for ${invited}`);
    // Nothing changed: Mallory is no member, the invitation still works for its address.
    expect(await codeOf(s.orgs.get(asMallory, org()))).toBe("not_found");
    expect((await s.members.preview(token)).email).toBe(invited);
    // The invited address, whatever its case, accepts it.
    const dora = await createUserWithPassword(auth, { email: invited, password: "correct horse battery", name: "Dora" });
    await s.members.accept(token, { userId: dora.id, email: invited.toUpperCase(), name: "Dora" });
    expect((await s.orgs.get({ userId: dora.id, email: invited, name: "Dora" }, org())).role).toBe("admin");
  });

  test("guessing invitation links is throttled per address like sign-in (10 wrong links, then rate_limited)", async () => {
    const ip = `203.0.113.${dialect === "sqlite" ? 7 : 8}`;
    const guess = (i: number) => `guess${String(i).padStart(3, "0")}${"x".repeat(30)}`;
    for (let i = 0; i < 10; i++) expect(await codeOf(s.members.preview(guess(i), ip))).toBe("invitation_invalid");
    expect(await codeOf(s.members.preview(guess(10), ip))).toBe("rate_limited");
    expect(await codeOf(s.members.accept(guess(11), null, { name: "X", password: "a long enough password" }, ip))).toBe("rate_limited");
    // Another address is not affected, and a right link from it works.
    const { link } = await s.members.invite(owner, org(), { email: `erin-${dialect}@example.com`, role: "member", send: false });
    expect((await s.members.preview(link.split("/").at(-1) as string, "198.51.100.1")).role).toBe("member");
  });

  test("removing a member ends their sessions; a password reset through the CLI ends the user's sessions", async () => {
    const email = `carol-${dialect}@example.com`;
    const { link } = await s.members.invite(owner, org(), { email, role: "member", send: false });
    await s.members.accept(link.split("/").at(-1) as string, null, { name: "Carol", password: "a long enough password" });
    const signIn = async () => {
      const res = await auth.api.signInEmail({ body: { email, password: "a long enough password" }, asResponse: true });
      return new Headers({ cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] as string });
    };
    const cookie = await signIn();
    const carol = await s.session.viewerFromHeaders(cookie);
    expect(carol?.email).toBe(email);
    await s.members.remove(owner, org(), carol?.userId as string);
    expect(await s.session.viewerFromHeaders(cookie)).toBeNull();

    const ownerCookie = new Headers({
      cookie: (
        (
          await auth.api.signInEmail({ body: { email: "owner@example.com", password: "correct horse battery" }, asResponse: true })
        ).headers.get("set-cookie") ?? ""
      ).split(";")[0] as string,
    });
    expect(await s.session.viewerFromHeaders(ownerCookie)).not.toBeNull();
    await s.operator.createOwner({ email: "owner@example.com", password: "another long password", orgSlug: org() });
    expect(await s.session.viewerFromHeaders(ownerCookie)).toBeNull();
  });
});
