/**
 * Issue trackers on both databases through the services the pages call: an admin sets GitHub and
 * Jira for the project (a member cannot; a bad URL stores nothing), the issue page's "Create issue"
 * links carry the title, the Errata link and the top in-app frame, a member links an existing issue
 * (http(s) only; a viewer cannot), the stream shows it, and it can be removed.
 */
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type AlertWorld, createAlertWorld } from "../alerts/helpers";
import { dialects } from "../helpers/test-db";
import { codeOf } from "../lifecycle/helpers";

describe.each(await dialects())("issue trackers on %s", (dialect) => {
  let w: AlertWorld;
  let issueId: number;

  beforeAll(async () => {
    w = await createAlertWorld(dialect);
    await w.sendEvents({ message: "card declined", filename: "src/checkout/pay.js" });
    issueId = await w.issueOf("card declined");
  });
  afterAll(async () => w?.close());

  test("settings: admins only, validated, nothing stored on a bad URL", async () => {
    expect(await codeOf(w.services.trackers.saveSettings(w.member, "acme", "web", { github: "https://github.com/acme/web" }))).toBe(
      "forbidden",
    );
    expect(await codeOf(w.services.trackers.saveSettings(w.admin, "acme", "web", { github: "javascript:alert(1)" }))).toBe(
      "validation_failed",
    );
    expect((await w.services.trackers.settings(w.admin, "acme", "web")).settings.github).toBeNull();
    const none = await w.services.trackers.forIssue(w.member, "acme", issueId);
    expect(none).toMatchObject({ configured: false, createLinks: [], canLink: true, canConfigure: false });
    await w.services.trackers.saveSettings(w.admin, "acme", "web", {
      github: "https://github.com/acme/web",
      jiraUrl: "https://acme.atlassian.net/browse/WEB",
      jiraProjectId: "10042",
    });
  });

  test("Create issue links are prefilled; linking is for members, shown in the stream, removable", async () => {
    const t = await w.services.trackers.forIssue(w.viewer, "acme", issueId);
    expect(t.createLinks.map((l) => l.kind)).toEqual(["github", "jira"]);
    const gh = new URL(t.createLinks[0]?.url ?? "");
    expect(gh.searchParams.get("title")).toBe("WEB-1: AlertError: card declined");
    expect(gh.searchParams.get("body")).toContain(`http://127.0.0.1:9999/acme/issues/${issueId}`);
    expect(gh.searchParams.get("body")).toContain("at handle_card_declined (src/checkout/pay.js:42)");
    expect(t.canLink).toBe(false);

    expect(await codeOf(w.services.trackers.link(w.viewer, "acme", issueId, "https://github.com/acme/web/issues/3"))).toBe("forbidden");
    expect(await codeOf(w.services.trackers.link(w.member, "acme", issueId, "javascript:alert(1)"))).toBe("validation_failed");
    expect(await codeOf(w.services.trackers.link(w.member, "acme", 999_999, "https://github.com/acme/web/issues/3"))).toBe("not_found");
    expect(await w.services.trackers.link(w.member, "acme", issueId, "https://github.com/acme/web/issues/3")).toEqual({
      url: "https://github.com/acme/web/issues/3",
      label: "acme/web#3",
    });
    expect((await w.services.trackers.forIssue(w.viewer, "acme", issueId)).link).toMatchObject({ label: "acme/web#3" });
    expect((await w.services.trackers.linksOf([issueId])).get(issueId)).toMatchObject({ label: "acme/web#3" });
    // Sentry's `annotations` in the REST issue list carry the link.
    const listed = await w.services.issues.list(w.viewer, "acme", { query: "" });
    expect(listed.items.find((i) => i.id === issueId)?.annotations).toEqual([
      { displayName: "acme/web#3", url: "https://github.com/acme/web/issues/3" },
    ]);

    await w.services.trackers.unlink(w.member, "acme", issueId);
    expect((await w.services.trackers.forIssue(w.viewer, "acme", issueId)).link).toBeNull();
  });
});
