/**
 * The "project members" email channel (an email channel without explicit addresses: the one a new
 * project's default rule gets) on both databases, delivered through the outbox to a real SMTP server:
 * it mails the members who may see the project, as the project pages decide
 * (storage/members/project-visibility.ts), never a member outside the project's teams: everyone
 * while the organization has no team; then the project's team members plus admins and owners, who
 * see every project; a project on no team reaches admins and owners only. Opt-outs still count.
 */
import type { ParsedMail } from "mailparser";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { loadConfig } from "../../src/config";
import { deliverDue } from "../../src/pipeline/alerts/delivery-loop";
import type { SendDeps } from "../../src/pipeline/alerts/send-notification";
import { type SmtpInbox, startSmtpInbox } from "../helpers/smtp-inbox";
import { dialects } from "../helpers/test-db";
import { silentLog } from "../pipeline/helpers";
import { type AlertWorld, createAlertWorld } from "./helpers";

const recipients = (m: ParsedMail | undefined) =>
  (Array.isArray(m?.to) ? m.to : [m?.to]).flatMap((a) => a?.value.map((v) => v.address) ?? []).sort();

describe.each(await dialects())("the project members email channel on %s", (dialect) => {
  let w: AlertWorld;
  let smtp: SmtpInbox;
  let deps: SendDeps;

  beforeAll(async () => {
    smtp = await startSmtpInbox();
    // with SMTP the project's default rule (new issues → "Project members (email)") has the channel
    w = await createAlertWorld(dialect, smtp.env);
    const config = loadConfig(smtp.env);
    deps = { db: w.db, alerts: config.alerts, smtp: config.smtp, publicUrl: "https://errata.example", now: () => w.clock.now };
  });
  afterAll(async () => {
    await smtp?.close();
    await w?.close();
  });

  const drainOutbox = async () => {
    while ((await deliverDue(w.db, deps, silentLog)) > 0) {}
  };
  const mailTo = async (message: string) => {
    await w.sendEvents({ message });
    await drainOutbox();
    const mails = smtp.mails.filter((m) => m.subject?.includes(message));
    expect(mails).toHaveLength(1);
    return recipients(mails[0]);
  };

  test("the channel has no addresses: the default rule's", async () => {
    const [channel] = (await w.services.alerts.overview(w.admin, "acme", "web")).channels;
    expect(channel).toMatchObject({ kind: "email", target: "project members" });
  });

  test("no team yet: every member sees every project, so every member is mailed", async () => {
    expect(await mailTo("before any team")).toEqual(["admin@example.com", "member@example.com", "owner@example.com", "viewer@example.com"]);
  });

  test("with teams: the project's team members, admins and owners; not a member on another team", async () => {
    // the first team starts with every member and project; narrow it to the member
    await w.services.teams.create(w.owner, "acme", { name: "web-team" });
    for (const v of [w.owner, w.admin, w.viewer]) await w.services.teams.setMember(w.owner, "acme", "web-team", v.userId, false);
    await w.services.teams.create(w.owner, "acme", { name: "other" });
    await w.services.teams.setMember(w.owner, "acme", "other", w.viewer.userId, true);
    expect(await mailTo("after teams")).toEqual(["admin@example.com", "member@example.com", "owner@example.com"]);
    const log = await w.services.alerts.deliveries(w.admin, "acme", "web");
    expect(log.map((d) => d.status)).toEqual(["sent", "sent"]);
  });

  test("opt-outs count; a project on no team reaches admins and owners only", async () => {
    await w.services.alerts.setEmailOptOut(w.admin, "acme", "web", true);
    expect(await mailTo("admin opted out")).toEqual(["member@example.com", "owner@example.com"]);
    await w.services.alerts.setEmailOptOut(w.admin, "acme", "web", false);

    await w.services.teams.setProject(w.owner, "acme", "web-team", "web", false);
    expect(await mailTo("project on no team")).toEqual(["admin@example.com", "owner@example.com"]);
  });
});
