import { describe, expect, test } from "vitest";
import { importedKey, importedPlatform, importedScrubbing, importedSlug, nextPageUrl, sentryKeySchema, sourceProjectId } from "./sentry";

describe("Link header (Sentry's cursor pagination)", () => {
  const prev =
    '<https://sentry.io/api/0/organizations/acme/projects/?&cursor=100:-1:1>; rel="previous"; results="false"; cursor="100:-1:1"';
  test("next with results", () => {
    const h = `${prev}, <https://sentry.io/api/0/organizations/acme/projects/?&cursor=100:1:0>; rel="next"; results="true"; cursor="100:1:0"`;
    expect(nextPageUrl(h)).toBe("https://sentry.io/api/0/organizations/acme/projects/?&cursor=100:1:0");
  });
  test("last page: next without results", () => {
    expect(nextPageUrl(`${prev}, <https://sentry.io/x/?&cursor=100:1:0>; rel="next"; results="false"; cursor="100:1:0"`)).toBeNull();
  });
  test("absent, junk, plain RFC 8288 next", () => {
    expect(nextPageUrl(undefined)).toBeNull();
    expect(nextPageUrl("garbage")).toBeNull();
    expect(nextPageUrl('<https://h/a?page=2>; rel="next"')).toBe("https://h/a?page=2");
  });
});

describe("mapping Sentry objects", () => {
  test("slugs with underscores become Errata slugs; platforms outside the rule become other", () => {
    expect(importedSlug("mobile_team")).toBe("mobile-team");
    expect(importedSlug("web")).toBe("web");
    expect(importedPlatform("javascript-react")).toBe("javascript-react");
    expect(importedPlatform(null)).toBe("other");
    expect(importedPlatform("<script>")).toBe("other");
  });
  test("keys keep public and secret verbatim (lower-cased hex); junk keys are skipped with a reason", () => {
    const k = sentryKeySchema.parse({
      public: "ABCDEF0123456789abcdef0123456789",
      secret: "s3",
      label: "CI",
      isActive: false,
      projectId: 7,
    });
    expect(importedKey(k)).toEqual({
      ok: true,
      key: { publicKey: "abcdef0123456789abcdef0123456789", secretKey: "s3", label: "CI", active: false },
    });
    expect(importedKey(sentryKeySchema.parse({ public: "not hex!" }))).toMatchObject({ ok: false });
  });
  test("scrubbing only when the source sent it", () => {
    expect(importedScrubbing({ id: "1", slug: "a" })).toBeUndefined();
    expect(importedScrubbing({ id: "1", slug: "a", dataScrubber: false, sensitiveFields: ["x", "x", " "] })).toEqual({
      enabled: false,
      scrubIp: false,
      extraKeys: ["x"],
      safeKeys: [],
    });
  });
  test("the old DSN's project id: the project's, else a key's", () => {
    expect(sourceProjectId({ id: "42", slug: "a" }, [])).toBe(42);
    expect(sourceProjectId({ id: "uuid-like", slug: "a" }, [sentryKeySchema.parse({ public: "ab", projectId: 9 })])).toBe(9);
    expect(sourceProjectId({ id: "x", slug: "a" }, [])).toBeNull();
  });
});
