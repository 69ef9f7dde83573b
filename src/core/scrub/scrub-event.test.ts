import { describe, expect, test } from "vitest";
import { corpusFiles, corpusJson } from "../../../test/pipeline/corpus";
import { normalizeEvent } from "../normalize-event";
import { isCardNumber, KeyMatcher, luhnValid, type SecretKind, scrubMemoSize, scrubString } from "./patterns";
import { DEFAULT_SCRUB_SETTINGS, readScrubSettings, type ScrubSettings, scrubEvent } from "./scrub-event";

const ctx = { receivedAt: Date.UTC(2026, 10, 22, 10, 44), clientIp: "198.51.100.7", eventId: "a".repeat(32) };
const norm = (raw: unknown) => normalizeEvent(raw, ctx);
const scrub = (raw: unknown, settings: Partial<ScrubSettings> = {}) => scrubEvent(norm(raw), { ...DEFAULT_SCRUB_SETTINGS, ...settings });
const json = (v: unknown) => JSON.stringify(v);
const keys = new KeyMatcher([], []);
const str = (s: string) => scrubString(s, keys, new Set());

const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAsecretpemmarker\n-----END RSA PRIVATE KEY-----";

describe("KeyMatcher.scrub: the memo of clean strings", () => {
  test("answers as scrubString does, the first time and every time after", () => {
    const m = new KeyMatcher(["order_ref"], []);
    const inputs = [
      "    at handler (/srv/app/routes/orders.js:42:13)",
      "GET /cb?code=1&access_token=abc123&x=2",
      "card 4111 1111 1111 1111 declined",
      "lookup order_ref=A-77 in the ledger",
      "const total = items.reduce((a, b) => a + b, 0);",
    ];
    for (let round = 0; round < 3; round++) {
      for (const s of inputs) {
        const memoFound = new Set<SecretKind>();
        const plainFound = new Set<SecretKind>();
        expect(m.scrub(s, memoFound)).toBe(scrubString(s, m, plainFound));
        expect([...memoFound]).toEqual([...plainFound]);
      }
    }
  });

  test("a secret is removed again on every event, never remembered as clean", () => {
    const m = new KeyMatcher([], []);
    const line = "retry with password=hunter2 against the replica";
    for (let i = 0; i < 3; i++) {
      const found = new Set<SecretKind>();
      expect(m.scrub(line, found)).toBe("retry with password=[Filtered] against the replica");
      expect([...found]).toEqual(["sensitive_parameter"]);
    }
  });

  test("the memo is bounded across all key configurations, and answers stay right past the bound", () => {
    const others = scrubMemoSize(); // the matchers of the tests before this one
    const a = new KeyMatcher(["alpha_key"], []);
    const b = new KeyMatcher(["beta_key"], []);
    for (let i = 0; i < 25_000; i++) {
      const line = `    at handler${i} (/srv/app/routes/orders-${i}.js:42:13)`;
      expect((i % 2 ? a : b).scrub(line, new Set())).toBe(line);
      expect(scrubMemoSize()).toBeLessThanOrEqual(10_000);
    }
    expect(a.scrub("call with alpha_key=123456 now", new Set())).toBe("call with alpha_key=[Filtered] now");
    a.forgetMemo();
    b.forgetMemo();
    expect(scrubMemoSize()).toBe(others);
  });

  test("the same text under a project's extra sensitive key is scrubbed, whatever another project cached", () => {
    const text = "queued job with tenant_pin=8812 for later";
    expect(new KeyMatcher([], []).scrub(text, new Set())).toBe(text);
    expect(new KeyMatcher(["tenant_pin"], []).scrub(text, new Set())).toBe("queued job with tenant_pin=[Filtered] for later");
  });
});

describe("scrubString: secrets inside any string", () => {
  test.each([
    ["card 4111 1111 1111 1111 declined", "card [Filtered] declined"],
    ["card 4111-1111-1111-1111", "card [Filtered]"],
    ["amex 378282246310005.", "amex [Filtered]."],
    ["Authorization: Bearer eyJhbGciOi.J9.abc-_~+/=", "Authorization: Bearer [Filtered]"],
    ["postgres://app:s3cr3t@db.internal:5432/app", "postgres://app:[Filtered]@db.internal:5432/app"],
    ["GET /cb?code=1&access_token=abc123&x=2", "GET /cb?code=1&access_token=[Filtered]&x=2"],
    ["login with password=hunter2 failed", "login with password=[Filtered] failed"],
    ['{"user":"bob","api_key":"k-123"', '{"user":"bob","api_key":"[Filtered]"'],
    [`key ${PEM} end`, "key [Filtered] end"],
  ])("%s", (input, expected) => {
    expect(str(input)).toBe(expected);
  });

  test("leaves ordinary numbers and text alone", () => {
    for (const s of [
      "order 1234567890123 shipped", // 13 digits, no issuer prefix match + Luhn
      "timestamp 1795343915640",
      "https://example.com/a?page=2&sort=asc",
      "user bob@example.com",
      "ratio 4111 of 1111",
    ]) {
      expect(str(s)).toBe(s);
    }
  });

  test("Luhn and issuer checks", () => {
    expect(luhnValid("4111111111111111")).toBe(true);
    expect(luhnValid("4111111111111112")).toBe(false);
    expect(isCardNumber("5555 5555 5555 4444")).toBe(true);
    expect(isCardNumber("9111111111111111")).toBe(false);
  });

  test("an unterminated PEM key (cut by trimming) is still removed to the end", () => {
    expect(str("x -----BEGIN PRIVATE KEY-----\nMIIBVQIBADANBg")).toBe("x [Filtered]");
  });

  test("long adversarial strings are processed (linear patterns)", () => {
    for (const s of ["a=".repeat(50_000), "://a:b".repeat(20_000), "1 ".repeat(50_000), `"a":"${"\\".repeat(50_000)}`]) {
      expect(typeof str(s)).toBe("string");
    }
  });
});

describe("scrubEvent", () => {
  const secretEvent = {
    message: "db at mysql://root:rootpw@10.0.0.2/db failed",
    extra: { password: "extra-pw", nested: { apiKey: "k1", fine: "visible" }, list: [{ token: "t1" }], card: 4111111111111111 },
    contexts: { app: { session_id: "s-1", name: "shop" } },
    tags: { session: "tag-session", region: "eu" },
    user: { id: "42", email: "bob@example.com", ip_address: "203.0.113.9", credit_card: "4242424242424242", plan: "pro" },
    request: {
      url: "https://shop.example/checkout?step=2&auth_token=qs-secret",
      headers: { Authorization: "Basic dXNlcjpwYXNz", Cookie: "sid=abc", "X-Request-Id": "r1", "X-Forwarded-For": "203.0.113.9" },
      cookies: { sid: "cookie-value", theme: "dark" },
      data: { username: "bob", password: "form-pw", card_number: "5555555555554444" },
      env: { REMOTE_ADDR: "203.0.113.9", SECRET_KEY: "env-secret" },
    },
    breadcrumbs: [{ category: "http", data: { url: "/x", csrf_token: "crumb-csrf" }, message: "sent Bearer crumbtoken123" }],
    exception: {
      values: [
        {
          type: "Error",
          value: "charge 4111 1111 1111 1111 failed",
          stacktrace: { frames: [{ function: "pay", filename: "pay.js", vars: { pin: "1234", secret: "frame-secret", amount: 5 } }] },
        },
      ],
    },
  };

  test("every kind of secret is filtered; structure and harmless values survive", () => {
    const out = scrub(secretEvent);
    const text = json(out);
    for (const secret of [
      "rootpw",
      "extra-pw",
      '"k1"',
      '"t1"',
      "4111111111111111",
      "s-1",
      "tag-session",
      "4242424242424242",
      "qs-secret",
      "dXNlcjpwYXNz",
      "sid=abc",
      "cookie-value",
      "form-pw",
      "5555555555554444",
      "env-secret",
      "crumb-csrf",
      "crumbtoken123",
      "4111 1111 1111 1111",
      "frame-secret",
    ]) {
      expect(text, secret).not.toContain(secret);
    }
    expect(out.extra?.nested).toEqual({ apiKey: "[Filtered]", fine: "visible" });
    expect(out.request?.cookies).toEqual([
      ["sid", "[Filtered]"],
      ["theme", "[Filtered]"],
    ]);
    expect(out.request?.headers).toContainEqual(["X-Request-Id", "r1"]);
    expect(out.user).toMatchObject({ id: "42", email: "bob@example.com", ip_address: "203.0.113.9", plan: "pro" });
    expect(out.tags).toContainEqual(["region", "eu"]);
    expect(out.logentry?.formatted).toBe("db at mysql://root:[Filtered]@10.0.0.2/db failed");
  });

  test("notes name the paths and kinds, never the values", () => {
    const out = scrub(secretEvent);
    const notes = out.errata.notes.filter((n) => n.type === "scrubbed");
    expect(notes.map((n) => n.path)).toEqual(
      expect.arrayContaining(["extra.password", "request.cookies.sid", "request.headers.Authorization", "exception.values.0.value"]),
    );
    expect(json(notes)).not.toContain("extra-pw");
  });

  test("IP removal when configured", () => {
    const out = scrub(secretEvent, { scrubIp: true });
    expect(out.user?.ip_address).toBeUndefined();
    expect(out.request?.env).toEqual({ SECRET_KEY: "[Filtered]" });
    expect(json(out)).not.toContain("203.0.113.9");
  });

  test("extra keys and safe keys", () => {
    const out = scrub(
      { extra: { iban: "DE89", password: "keep-me", token_count: 3, author: "Ann", oauth_state: "x", "X-Authorization": "y" } },
      { extraKeys: ["IBAN"], safeKeys: ["password"] },
    );
    expect(out.extra).toEqual({
      iban: "[Filtered]",
      password: "keep-me",
      token_count: "[Filtered]",
      author: "Ann",
      oauth_state: "[Filtered]",
      "X-Authorization": "[Filtered]",
    });
  });

  test("disabled: untouched", () => {
    const e = norm(secretEvent);
    expect(scrubEvent(e, { ...DEFAULT_SCRUB_SETTINGS, enabled: false })).toBe(e);
  });

  test("copy-on-write: the input is never mutated; a clean event is returned as is", () => {
    const e = norm(secretEvent);
    const before = json(e);
    scrubEvent(e);
    expect(json(e)).toBe(before);
    const clean = norm({ message: "hello", extra: { a: 1 } });
    expect(scrubEvent(clean)).toBe(clean);
  });

  test("request.data as JSON text or a form body", () => {
    const a = scrub({ request: { data: '{"user":"bob","password":"json-pw"}' } });
    expect(a.request?.data).toBe('{"user":"bob","password":"[Filtered]"}');
    const b = scrub({ request: { data: "user=bob&password=form-pw&x=1" } });
    expect(b.request?.data).toBe("user=bob&password=[Filtered]&x=1");
  });

  test("settings: defaults when absent or malformed; never off by accident", () => {
    expect(readScrubSettings({})).toEqual(DEFAULT_SCRUB_SETTINGS);
    expect(readScrubSettings(null)).toEqual(DEFAULT_SCRUB_SETTINGS);
    expect(readScrubSettings({ scrubbing: { enabled: "no", scrubIp: true, extraKeys: ["iban", 3, " "] } })).toEqual({
      enabled: true,
      scrubIp: true,
      extraKeys: ["iban"],
      safeKeys: [],
    });
    expect(readScrubSettings({ scrubbing: { enabled: false } }).enabled).toBe(false);
  });

  test.each(corpusFiles())("%s scrubs without throwing", (file) => {
    expect(() => scrubEvent(norm(corpusJson(file)))).not.toThrow();
  });
});
