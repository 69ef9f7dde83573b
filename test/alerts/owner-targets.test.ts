/**
 * Alerts to "issue owners" and "suspect commit authors" (issue 30) on both databases, delivered
 * through the outbox to a real SMTP server (smtp-server): a rule targeting issue owners mails only
 * the #payments members for an issue whose frame is in src/checkout/, the last matching ownership
 * rule winning over an earlier catch-all; an issue no rule owns falls through to every member, or
 * to no one; a rule targeting suspect commit authors mails the member whose release commit changed
 * the frame's file. Only members who may see the project are ever mailed. Recipients are found at delivery time, so a team change before delivery counts.
 * Sentry's rule shape carries the targets as NotifyEmailAction with targetType and fallthroughType.
 */
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { deliverDue } from "../../src/pipeline/alerts/delivery-loop";
import type { SendDeps } from "../../src/pipeline/alerts/send-notification";
import { fromSentryRule, sentryRule } from "../../src/server/sentry-api/shapes/alert-rule";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects } from "../helpers/test-db";
import { silentLog } from "../pipeline/helpers";
import { type AlertWorld, createAlertWorld } from "./helpers";

const recipients = (m: ParsedMail | undefined) =>
  (Array.isArray(m?.to) ? m.to : [m?.to]).flatMap((a) => a?.value.map((v) => v.address) ?? []).sort();

describe.each(await dialects())("alerts to issue owners and suspect commit authors on %s", (dialect) => {
  let w: AlertWorld;
  let smtp: SmtpInbox;
  let deps: SendDeps;

  beforeAll(async () => {
    // no SMTP_HOST for the world: the project's default rule has no email channel to send to
    w = await createAlertWorld(dialect);
    smtp = await startSmtpInbox();
    const config = loadConfig({ SMTP_HOST: "127.0.0.1", SMTP_PORT: String(smtp.port), SMTP_FROM: "Errata <alerts@errata.test>" });
    deps = { db: w.db, alerts: config.alerts, smtp: config.smtp, publicUrl: "https://errata.example", now: () => w.clock.now };
    await w.services.teams.create(w.owner, "acme", { name: "payments" });
    for (const v of [w.owner, w.admin, w.viewer]) await w.services.teams.setMember(w.owner, "acme", "payments", v.userId, false);
    await w.services.teams.setMember(w.owner, "acme", "payments", w.member.userId, true);
    await w.services.ownership.update(w.owner, "acme", "web", {
      raw: "path:src/* viewer@example.com\npath:*/checkout/* #payments",
      autoAssignment: "Turn off Auto-Assignment",
    });
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.close();
  });

  const drainOutbox = async () => {
    while ((await deliverDue(w.db, deps, silentLog)) > 0) {}
  };
  const mailsAbout = (title: string) => smtp.mails.filter((m) => m.subject?.includes(title));

  test("a checkout issue mails only #payments; an unowned one falls through to every member", async () => {
    const rule = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "owners",
      triggers: { newIssue: true },
      targets: [{ type: "issue_owners", fallthrough: "all_members" }],
    });
    expect(rule.targets).toEqual([{ type: "issue_owners", fallthrough: "all_members" }]);
    await w.sendEvents({ message: "card declined", filename: "src/checkout/pay.js" });
    await drainOutbox();
    const checkout = mailsAbout("card declined");
    expect(checkout).toHaveLength(1);
    // the earlier catch-all (viewer) matched too; the last matching rule decides
    expect(recipients(checkout[0])).toEqual(["member@example.com"]);

    await w.sendEvents({ message: "search timeout", filename: "lib/search/find.js" });
    await drainOutbox();
    const unowned = mailsAbout("search timeout");
    expect(unowned).toHaveLength(1);
    // every member who may see the project: the viewer is on no team of it
    expect(recipients(unowned[0])).toEqual(["admin@example.com", "member@example.com", "owner@example.com"]);

    const log = await w.services.alerts.deliveries(w.admin, "acme", "web", { ruleId: rule.id });
    expect(log.map((d) => [d.channelId, d.status])).toEqual([
      [0, "sent"],
      [0, "sent"],
    ]);
    expect(log.map((d) => d.responseBody).join("\n")).toContain("owners by rule path:*/checkout/* #payments");
    expect(log.map((d) => d.responseBody).join("\n")).toContain("no owner matched; fallthrough: all members");
    await w.services.alerts.deleteRule(w.admin, "acme", "web", rule.id);
  });

  test("fallthrough 'no one' sends nothing; members who opted out are left out; team changes count at delivery", async () => {
    const rule = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "owners only",
      triggers: { newIssue: true },
      targets: [{ type: "issue_owners", fallthrough: "no_one" }],
    });
    const before = smtp.mails.length;
    await w.sendEvents({ message: "nobody owns this", filename: "lib/other.js" });
    await drainOutbox();
    expect(smtp.mails.length).toBe(before);
    const [d] = await w.services.alerts.deliveries(w.admin, "acme", "web", { ruleId: rule.id });
    expect(d).toMatchObject({ status: "failed", lastError: "no recipients: no owner matched; fallthrough: no one" });

    // queued while #payments is the member; delivered after the admin joined it
    await w.sendEvents({ message: "refund failed", filename: "src/checkout/refund.js" });
    await w.services.teams.setMember(w.owner, "acme", "payments", w.admin.userId, true);
    await w.services.alerts.setEmailOptOut(w.member, "acme", "web", true);
    await drainOutbox();
    expect(recipients(mailsAbout("refund failed")[0])).toEqual(["admin@example.com"]);
    await w.services.alerts.setEmailOptOut(w.member, "acme", "web", false);
    await w.services.teams.setMember(w.owner, "acme", "payments", w.admin.userId, false);
    await w.services.alerts.deleteRule(w.admin, "acme", "web", rule.id);
  });

  test("fallthrough 'recently active members': those who signed in, not the others", async () => {
    for (const email of ["member@example.com", "admin@example.com"]) {
      const res = await w.services.auth.api.signInEmail({ body: { email, password: "a sturdy passphrase" }, asResponse: true });
      expect(res.status).toBe(200);
    }
    const rule = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "owners or the active",
      triggers: { newIssue: true },
      targets: [{ type: "issue_owners", fallthrough: "active_members" }],
    });
    await w.sendEvents({ message: "nobody near", filename: "lib/far.js" });
    await drainOutbox();
    expect(recipients(mailsAbout("nobody near")[0])).toEqual(["admin@example.com", "member@example.com"]);
    await w.services.alerts.deleteRule(w.admin, "acme", "web", rule.id);
  });

  test("suspect commit authors: the member whose commit changed the frame's file", async () => {
    await w.services.releaseApi.create(w.owner, "acme", {
      version: "web@2.0.0",
      projects: ["web"],
      commits: [
        {
          id: "aaaa1111",
          repository: "acme/web",
          message: "docs",
          author_email: "owner@example.com",
          patch_set: [{ path: "README.md", type: "M" }],
        },
        {
          id: "bbbb2222",
          repository: "acme/web",
          message: "Round cents",
          author_email: "Viewer@Example.com",
          patch_set: [{ path: "src/checkout/tax.js", type: "M" }],
        },
      ],
    });
    const rule = await w.services.alerts.createRule(w.admin, "acme", "web", {
      name: "suspects",
      triggers: { newIssue: true },
      targets: [{ type: "suspect_commits", fallthrough: "no_one" }],
    });
    // the author is a member outside the project's teams: never mailed about it
    await w.sendEvents({ message: "tax rounding", filename: "src/checkout/tax.js", release: "web@2.0.0" });
    await drainOutbox();
    expect(mailsAbout("tax rounding")).toEqual([]);
    const [outside] = await w.services.alerts.deliveries(w.admin, "acme", "web", { ruleId: rule.id });
    expect(outside?.lastError).toMatch(/^no recipients: suspect commits bbbb2222, none subscribed; fallthrough: no one$/);
    await w.services.teams.setMember(w.owner, "acme", "payments", w.viewer.userId, true);
    await w.sendEvents({ message: "tax again", filename: "src/checkout/tax.js", release: "web@2.0.0" });
    await drainOutbox();
    expect(recipients(mailsAbout("tax again")[0])).toEqual(["viewer@example.com"]);
    const [d] = await w.services.alerts.deliveries(w.admin, "acme", "web", { ruleId: rule.id });
    expect(d?.responseBody).toContain("suspect commits bbbb2222");
    await w.services.teams.setMember(w.owner, "acme", "payments", w.viewer.userId, false);
    await w.services.alerts.deleteRule(w.admin, "acme", "web", rule.id);
  });

  test("Sentry's rule shape: NotifyEmailAction with targetType and fallthroughType, both ways; unknown targets refused", async () => {
    const body = {
      name: "sentry owners",
      conditions: [{ id: "sentry.rules.conditions.first_seen_event.FirstSeenEventCondition" }],
      actions: [
        { id: "sentry.mail.actions.NotifyEmailAction", targetType: "IssueOwners", targetIdentifier: "", fallthroughType: "NoOne" },
        { id: "sentry.mail.actions.NotifyEmailAction", targetType: "SuspectCommitAuthors", fallthroughType: "AllMembers" },
      ],
    };
    const rule = await w.services.alerts.createRule(w.admin, "acme", "web", fromSentryRule(body));
    expect(rule.targets).toEqual([
      { type: "issue_owners", fallthrough: "no_one" },
      { type: "suspect_commits", fallthrough: "all_members" },
    ]);
    expect(sentryRule(rule).actions).toEqual([
      { id: "sentry.mail.actions.NotifyEmailAction", targetType: "IssueOwners", targetIdentifier: "", fallthroughType: "NoOne" },
      {
        id: "sentry.mail.actions.NotifyEmailAction",
        targetType: "SuspectCommitAuthors",
        targetIdentifier: "",
        fallthroughType: "AllMembers",
      },
    ]);
    expect(() => fromSentryRule({ ...body, actions: [{ id: "sentry.mail.actions.NotifyEmailAction", targetType: "Team" }] })).toThrow(
      expect.objectContaining({ code: "validation_failed", fields: [expect.objectContaining({ field: "actions.0.targetType" })] }),
    );
    await expect(
      w.services.alerts.createRule(w.admin, "acme", "web", { name: "bad", triggers: { newIssue: true }, targets: [{ type: "everyone" }] }),
    ).rejects.toMatchObject({ code: "validation_failed" });
    await w.services.alerts.deleteRule(w.admin, "acme", "web", rule.id);
  });
});
