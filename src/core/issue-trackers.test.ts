import { describe, expect, test } from "vitest";
import { createIssueLinks, linkLabel, parseLinkUrl, parseTrackerSettings, topInAppFrames, trackerBody } from "./issue-trackers";

const issue = {
  shortId: "SHOP-7",
  title: "TypeError: a & b #1 100%",
  culprit: "charge(src/checkout/pay.js)",
  url: "https://errata.example/acme/issues/7",
  frames: ["charge (src/checkout/pay.js:12)"],
};

describe("issue tracker links", () => {
  test("GitHub, GitLab and Jira links carry the title, the Errata link and frames, URL-encoded", () => {
    const s = parseTrackerSettings({
      github: "https://github.com/acme/shop/",
      gitlab: "https://git.example.com/group/sub/shop",
      jiraUrl: "https://acme.atlassian.net/browse/PAY",
      jiraProjectId: "10001",
    });
    const [gh, gl, jira] = createIssueLinks(s, issue);
    const ghUrl = new URL(gh?.url ?? "");
    expect(ghUrl.origin + ghUrl.pathname).toBe("https://github.com/acme/shop/issues/new");
    expect(ghUrl.searchParams.get("title")).toBe("SHOP-7: TypeError: a & b #1 100%");
    expect(ghUrl.searchParams.get("body")).toBe(trackerBody(issue));
    expect(gh?.url).not.toContain(" ");
    expect(gh?.url).toContain("%26");
    expect(new URL(gl?.url ?? "").pathname).toBe("/group/sub/shop/-/issues/new");
    expect(new URL(gl?.url ?? "").searchParams.get("issue[description]")).toContain("https://errata.example/acme/issues/7");
    const j = new URL(jira?.url ?? "");
    expect(j.pathname).toBe("/secure/CreateIssueDetails!init.jspa");
    expect(j.searchParams.get("pid")).toBe("10001");
    expect(j.searchParams.get("description")).toContain("at charge (src/checkout/pay.js:12)");
  });

  test("settings and links are validated", () => {
    expect(() => parseTrackerSettings({ github: "javascript:alert(1)" })).toThrow();
    expect(() => parseTrackerSettings({ github: "https://github.com/acme" })).toThrow();
    expect(() => parseTrackerSettings({ jiraUrl: "https://acme.atlassian.net" })).toThrow();
    expect(parseTrackerSettings({ github: "" })).toMatchObject({ github: null });
    expect(() => parseLinkUrl("ftp://x/1")).toThrow();
    expect(() => parseLinkUrl(`https://x/${"a".repeat(2001)}`)).toThrow();
    expect(parseLinkUrl(" https://github.com/acme/shop/issues/12 ")).toBe("https://github.com/acme/shop/issues/12");
    expect(linkLabel("https://github.com/acme/shop/issues/12")).toBe("acme/shop#12");
    expect(linkLabel("https://gitlab.com/g/p/-/issues/3")).toBe("g/p#3");
    expect(linkLabel("https://acme.atlassian.net/browse/PAY-7")).toBe("PAY-7");
  });

  test("top in-app frames, innermost first", () => {
    const frames = topInAppFrames({
      exception: {
        values: [
          {
            stacktrace: {
              frames: [
                { function: "outer", filename: "src/a.js", lineno: 1, in_app: true },
                { function: "lib", filename: "node_modules/x.js", in_app: false },
                { function: "inner", filename: "src/b.js", lineno: 2, in_app: true },
              ],
            },
          },
        ],
      },
    } as never);
    expect(frames).toEqual(["inner (src/b.js:2)", "outer (src/a.js:1)"]);
  });
});
