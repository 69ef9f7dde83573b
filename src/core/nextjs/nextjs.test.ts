/**
 * The Next.js rules on real payloads: the envelopes in test/nextjs/fixtures/ were recorded from
 * @sentry/nextjs 11.0.0 in a production Next 16.4 app (server `onRequestError` and the browser's
 * error.tsx) and from @sentry/browser with React 19's production build in Chromium
 * (test/nextjs/capture-browser-fixtures.mjs re-records the browser ones).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { corpusJson } from "../../../test/pipeline/corpus";
import { parseEnvelope, parseJsonObject } from "../../ingest/parse-envelope";
import type { NormalizedEvent } from "../event";
import { groupEvent } from "../grouping/index";
import { normalizeEvent } from "../normalize-event";
import { parseIssueSearch } from "../search/parse-query";
import {
  annotateNextjs,
  CLASS_TAG,
  classifyDeploySkew,
  decodeReactError,
  describeWithNextjs,
  digestSide,
  extractDigest,
  isReservedDigest,
  parseDigest,
  pastedDigest,
  reactErrorTemplate,
} from "./index";
import codes from "./react-error-codes.json";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../test/nextjs/fixtures");
const LIMITS = { maxHeaderLine: 8192, maxEventSize: 1 << 20, maxAttachmentSize: 1 << 20 };
const hash = (s: string) => s; // identity: keys stay readable in assertions

function fixtureRaw(name: string): Record<string, unknown> {
  const env = parseEnvelope(fs.readFileSync(path.join(FIXTURES, name)), LIMITS);
  const item = env.items.find((i) => i.headers.type === "event");
  if (!item) throw new Error(`${name} has no event item`);
  return parseJsonObject(item.payload, "event");
}

function fixture(name: string): NormalizedEvent {
  return normalizeEvent(fixtureRaw(name), { receivedAt: Date.UTC(2026, 10, 22), clientIp: "203.0.113.7" });
}

function event(raw: Record<string, unknown>): NormalizedEvent {
  return normalizeEvent(raw, { receivedAt: Date.UTC(2026, 10, 22), clientIp: null, eventId: "a".repeat(32) });
}

const exc = (type: string, value: string, extra: Record<string, unknown> = {}) => ({ exception: { values: [{ type, value, ...extra }] } });

describe("React error table", () => {
  test("is React's codes.json: the codes Next.js and hydration produce are there", () => {
    const table = codes as Record<string, string>;
    expect(Object.keys(table).length).toBeGreaterThan(550);
    for (const code of [31, 130, 152, 185, 300, 301, 310, 418, 419, 421, 423, 425, 426, 441, 482])
      expect(table[String(code)], String(code)).toBeTruthy();
    expect(table["423"]).toBe(
      "There was an error while hydrating but React was able to recover by instead client rendering the entire root.",
    );
    expect(reactErrorTemplate(418)).toMatch(/^Hydration failed because the server rendered %s didn't match the client\./);
  });
});

describe("decodeReactError", () => {
  test("React 19 form, from a real hydration mismatch (#418 with two args, the second empty)", () => {
    const e = fixture("browser-react-418-hydration.envelope");
    const value = e.exception?.values[0]?.value as string;
    expect(value).toMatch(
      /^Minified React error #418; visit https:\/\/react\.dev\/errors\/418\?args\[\]=text&args\[\]= for the full message/,
    );
    const d = decodeReactError(value);
    expect(d?.code).toBe(418);
    expect(d?.args).toEqual(["text", ""]);
    expect(d?.message).toMatch(/^Hydration failed because the server rendered text didn't match the client\./);
    expect(d?.message).toMatch(/hydration-mismatch$/);
    expect(d?.message).not.toContain("%s");
  });

  test("percent-encoded args are decoded and interpolated (#31 from a real render)", () => {
    const value = fixture("browser-react-31-object-child.envelope").exception?.values[0]?.value as string;
    const d = decodeReactError(value);
    expect(d).toMatchObject({ code: 31, args: ["object with keys {a}"] });
    expect(d?.message).toBe(
      "Objects are not valid as a React child (found: object with keys {a}). If you meant to render a collection of children, use an array instead.",
    );
  });

  test("the older reactjs.org form (React ≤ 18)", () => {
    const d = decodeReactError(
      "Minified React error #130; visit https://reactjs.org/docs/error-decoder.html?invariant=130&args[]=undefined&args[]= for the full message or use the non-minified dev environment for full errors and additional helpful warnings.",
    );
    expect(d?.code).toBe(130);
    expect(d?.args).toEqual(["undefined", ""]);
    expect(d?.message).toBe(
      "Element type is invalid: expected a string (for built-in components) or a class/function (for composite components) but got: undefined.",
    );
  });

  test("no args, a code missing from the table, and non-React text", () => {
    expect(decodeReactError("Minified React error #423; visit https://react.dev/errors/423 for the full message")?.message).toBe(
      "There was an error while hydrating but React was able to recover by instead client rendering the entire root.",
    );
    expect(decodeReactError("Minified React error #9999; visit https://react.dev/errors/9999 for the full message")).toMatchObject({
      code: 9999,
      message: null,
    });
    expect(decodeReactError("TypeError: x is undefined")).toBeNull();
    expect(decodeReactError(undefined)).toBeNull();
  });
});

describe("classifyDeploySkew", () => {
  test("real payloads: Chromium's failed dynamic import and webpack's ChunkLoadError", () => {
    expect(classifyDeploySkew(fixture("browser-chunk-dynamic-import.envelope"))).toBe("deploy-skew");
    expect(classifyDeploySkew(fixture("browser-chunk-webpack.envelope"))).toBe("deploy-skew");
  });

  test.each([
    ["ChunkLoadError", "Loading chunk 742 failed.\n(error: https://shop.example/_next/static/chunks/742.js)"],
    ["ChunkLoadError", "Failed to load chunk /_next/static/chunks/0d1f2e3c.js from module 81234: TypeError: Failed to fetch"],
    ["Error", "Loading CSS chunk 5 failed.\n(/_next/static/css/5.css)"],
    ["TypeError", "Failed to fetch dynamically imported module: https://shop.example/assets/index-4f2a.js"],
    ["TypeError", "error loading dynamically imported module: https://shop.example/assets/index-4f2a.js"],
    ["TypeError", "Importing a module script failed."],
    ["Error", "Unable to preload CSS for /assets/index-4f2a.css"],
  ])("%s: %s", (type, value) => {
    expect(classifyDeploySkew(event(exc(type, value)))).toBe("deploy-skew");
  });

  test("ordinary errors are not deploy skew", () => {
    expect(classifyDeploySkew(event(exc("TypeError", "Failed to fetch")))).toBeNull();
    expect(classifyDeploySkew(event(exc("Error", "Loading the cart failed")))).toBeNull();
    expect(classifyDeploySkew(fixture("nextjs-server-render-error.envelope"))).toBeNull();
  });
});

describe("digests", () => {
  test("parseDigest: Next's number, @E suffix kept for display, reserved control flow skipped", () => {
    expect(parseDigest("2183930132")).toEqual({ value: "2183930132", key: "2183930132" });
    expect(parseDigest("2183930132@E352")).toEqual({ value: "2183930132@E352", key: "2183930132" });
    expect(parseDigest(406327854)).toEqual({ value: "406327854", key: "406327854" });
    for (const d of [
      "NEXT_REDIRECT;replace;/login;307;",
      "NEXT_NOT_FOUND",
      "NEXT_HTTP_ERROR_FALLBACK;404",
      "DYNAMIC_SERVER_USAGE",
      "BAILOUT_TO_CLIENT_SIDE_RENDERING",
    ]) {
      expect(isReservedDigest(d), d).toBe(true);
      expect(parseDigest(d), d).toBeNull();
    }
    expect(parseDigest("MY_APP_ERROR")).toEqual({ value: "MY_APP_ERROR", key: "MY_APP_ERROR" });
    expect(parseDigest("sha256:abc", false)).toBeNull();
    expect(parseDigest("two words")).toBeNull();
    expect(parseDigest("")).toBeNull();
  });

  test("digest: in the search language: the match key, errors at the term's position", () => {
    const digestOf = (q: string) => parseIssueSearch(q, 0).conditions.find((c) => c.kind === "digest");
    expect(digestOf("is:unresolved digest:2183930132@E352")).toEqual({ kind: "digest", values: ["2183930132"], negated: false });
    expect(digestOf('digest:"406327854"')).toEqual({ kind: "digest", values: ["406327854"], negated: false });
    try {
      parseIssueSearch("level:error digest:NEXT_NOT_FOUND", 0);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: "invalid_query", position: 12 });
    }
  });

  test("pastedDigest: 6–12 digits, optional @E", () => {
    expect(pastedDigest(" 406327854 ")).toBe("406327854");
    expect(pastedDigest("2183930132@E352")).toBe("2183930132");
    expect(pastedDigest("12345")).toBeNull();
    expect(pastedDigest("1234567890123")).toBeNull();
    expect(pastedDigest("is:unresolved 406327854")).toBeNull();
  });

  test("real @sentry/nextjs payloads: server (onRequestError) and browser (error.tsx) carry the same digest", () => {
    const server = fixture("nextjs-server-render-error.envelope");
    const client = fixture("nextjs-client-mirror-error.envelope");
    expect(extractDigest(server)).toEqual({ value: "406327854", key: "406327854", source: "tag:digest" });
    expect(extractDigest(client)).toEqual({ value: "406327854", key: "406327854", source: "tag:digest" });
    expect(digestSide(server)).toBe("server");
    expect(digestSide(client)).toBe("client");
  });

  test("other places a digest is found", () => {
    const nextSdk = { sdk: { name: "sentry.javascript.nextjs", version: "11.0.0" } };
    expect(extractDigest(event({ ...exc("Error", "x"), contexts: { nextjs: { digest: "123456789" } } }))?.source).toBe(
      "contexts.nextjs.digest",
    );
    expect(extractDigest(event({ ...exc("Error", "x"), extra: { digest: "123456789@E7" } }))).toMatchObject({
      key: "123456789",
      value: "123456789@E7",
    });
    expect(
      extractDigest(
        event({ exception: { values: [{ type: "Error", value: "x", mechanism: { type: "generic", data: { digest: "987654321" } } }] } }),
      )?.source,
    ).toBe("mechanism.data.digest");
    // ExtraErrorData copies error properties into a context named after the error.
    expect(extractDigest(event({ ...exc("Error", "x"), contexts: { Error: { digest: "555666777" } } }))?.key).toBe("555666777");
    // A custom digest only from the Next.js SDK; a container image digest tag elsewhere is not one.
    expect(extractDigest(event({ ...exc("Error", "x"), ...nextSdk, tags: { digest: "ORDER_FAILED" } }))?.key).toBe("ORDER_FAILED");
    expect(extractDigest(event({ ...exc("Error", "x"), tags: { digest: "sha256:9f86d081884c" } }))).toBeNull();
    // Control flow is never indexed.
    expect(
      extractDigest(event({ ...exc("Error", "NEXT_REDIRECT"), ...nextSdk, tags: { digest: "NEXT_REDIRECT;push;/login;307;" } })),
    ).toBeNull();
  });

  test("the browser mirror error: a digest under another tag or extra name is found too", () => {
    const mirror = exc(
      "Error",
      "An error occurred in the Server Components render. The specific message is omitted in production builds to avoid leaking sensitive details. A digest property is included on this error instance which may provide additional details about the nature of the error.",
    );
    expect(extractDigest(event({ ...mirror, tags: { next_error_digest: "3141592653" } }))).toMatchObject({
      key: "3141592653",
      source: "tag:next_error_digest",
    });
    expect(extractDigest(event({ ...mirror, extra: { errorDigest: "2718281828" } }))).toMatchObject({
      key: "2718281828",
      source: "extra.errorDigest",
    });
    expect(extractDigest(event({ ...exc("Error", "boom"), tags: { next_error_digest: "3141592653" } }))).toBeNull();
  });
});

describe("annotateNextjs + grouping", () => {
  function group(e: NormalizedEvent) {
    const a = annotateNextjs(e);
    return { a, g: describeWithNextjs(groupEvent(e, "v1", hash), e, a) };
  }

  test("the browser mirror groups by digest and is titled with it; the server event keeps its own grouping", () => {
    const { a, g } = group(fixture("nextjs-client-mirror-error.envelope"));
    expect(a.fingerprint).toEqual(["nextjs-server-component-render", "406327854"]);
    expect(g.source).toBe("fingerprint");
    expect(g.title).toBe("Error: An error occurred in the Server Components render (digest 406327854)");
    const other = fixture("nextjs-client-mirror-error.envelope");
    other.tags = [["digest", "111222333"]];
    expect(group(other).g.hashes).not.toEqual(g.hashes);

    const server = group(fixture("nextjs-server-render-error.envelope"));
    expect(server.a.fingerprint).toBeNull();
    expect(server.a.digest).toMatchObject({ key: "406327854", side: "server" });
    expect(server.g.title).toBe("Error: Invoice service refused the request (server component)");
  });

  test("deploy skew: tagged, grouped per release whatever the chunk URL", () => {
    const a = event({ ...exc("ChunkLoadError", "Loading chunk 1 failed.\n(error: https://x/1.js)"), release: "web@2" });
    const b = event({ ...exc("TypeError", "Failed to fetch dynamically imported module: https://x/2.js"), release: "web@2" });
    const c = event({ ...exc("ChunkLoadError", "Loading chunk 1 failed.\n(error: https://x/1.js)"), release: "web@3" });
    const [ga, gb, gc] = [group(a), group(b), group(c)];
    expect(ga.a.classification).toBe("deploy-skew");
    expect(a.tags).toContainEqual([CLASS_TAG, "deploy-skew"]);
    expect(ga.g.hashes).toEqual(gb.g.hashes);
    expect(ga.g.hashes).not.toEqual(gc.g.hashes);
    expect(ga.g.title).toBe("Deploy skew (web@2): ChunkLoadError: Loading chunk 1 failed.");
    expect(group(event(exc("ChunkLoadError", "Loading chunk 9 failed."))).a.fingerprint).toEqual(["deploy-skew", "<no release>"]);
  });

  test("minified React errors: decoded onto the event and title, raw value kept, grouped by code", () => {
    const e = fixture("browser-react-418-hydration.envelope");
    const raw = e.exception?.values[0]?.value;
    const { a, g } = group(e);
    expect(e.exception?.values[0]?.value).toBe(raw);
    expect((e.errata as { react?: unknown }).react).toMatchObject({ code: 418, args: ["text", ""] });
    expect(a.fingerprint).toEqual(["react-error", "418"]);
    expect(g.title).toBe(
      "Error: Hydration failed because the server rendered text didn't match the client. As a result this tree will be regenerated on the client. This can happen if a SSR-ed Client Component used:",
    );
    expect(g.metadata.react_error).toBe(418);
    const other = event(
      exc("Error", "Minified React error #418; visit https://react.dev/errors/418?args[]=HTML&args[]=%2B%20diff for the full message"),
    );
    expect(group(other).g.hashes).toEqual(g.hashes);
    expect(group(fixture("browser-react-31-object-child.envelope")).g.hashes).not.toEqual(g.hashes);
  });

  test("a real Sentry payload (corpus): webpack chunk timeout with fingerprint [{{ default }}] is regrouped per release", () => {
    const raw = corpusJson("sentry/javascript-exception-fallback-to-message.json") as Record<string, unknown>;
    const e = event({ ...raw, release: "sentry@24.1.0" });
    expect(e.fingerprint).toEqual(["{{ default }}"]);
    expect(group(e).a.fingerprint).toEqual(["deploy-skew", "sentry@24.1.0"]);
  });

  test("a fingerprint from the SDK always wins", () => {
    const e = event({ ...exc("ChunkLoadError", "Loading chunk 1 failed."), fingerprint: ["my-own"] });
    const { a, g } = group(e);
    expect(a.classification).toBe("deploy-skew");
    expect(a.fingerprint).toBeNull();
    expect(g.components).toEqual(["my-own"]);
  });

  test("a note explains the grouping rule", () => {
    const e = fixture("browser-chunk-webpack.envelope");
    annotateNextjs(e);
    expect(e.errata.notes.find((n) => n.type === "nextjs_grouping")?.detail).toMatch(/deploy skew per release \(web@2\.0\.0\)/);
  });
});
