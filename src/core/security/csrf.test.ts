import { expect, test } from "vitest";
import { type CsrfRequest, csrfVerdict } from "./csrf";

const ORIGIN = "http://127.0.0.1:9000";
const COOKIE = "better-auth.session_token=abc.def";
const base: CsrfRequest = {
  method: "POST",
  path: "/api/0/organizations/acme/issues/1/comments/",
  origin: ORIGIN,
  cookie: COOKIE,
  authorization: undefined,
  contentType: "application/json",
  hasBody: true,
};

test("a cookie request from our exact origin with JSON passes", () => {
  expect(csrfVerdict(base, ORIGIN)).toEqual({ ok: true });
  expect(csrfVerdict({ ...base, contentType: "application/json; charset=utf-8" }, `${ORIGIN}/`)).toEqual({ ok: true });
});

test("another port, scheme or host of the same site is foreign; so is a missing or null Origin", () => {
  for (const origin of ["http://127.0.0.1:9001", "https://127.0.0.1:9000", "http://localhost:9000", "null", undefined, "garbage"]) {
    expect(csrfVerdict({ ...base, origin }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
  }
});

test("REST with the cookie needs a JSON body: text/plain and multipart are refused", () => {
  expect(csrfVerdict({ ...base, contentType: "text/plain;charset=UTF-8" }, ORIGIN)).toEqual({ ok: false, code: "json_required" });
  expect(csrfVerdict({ ...base, contentType: "multipart/form-data; boundary=x" }, ORIGIN)).toEqual({ ok: false, code: "json_required" });
  expect(csrfVerdict({ ...base, method: "DELETE", contentType: undefined, hasBody: false }, ORIGIN)).toEqual({ ok: true });
});

test("server actions and route handlers outside REST: origin only (their bodies are text/plain or multipart)", () => {
  const action = { ...base, path: "/acme/issues/7", contentType: "text/plain;charset=UTF-8" };
  expect(csrfVerdict(action, ORIGIN)).toEqual({ ok: true });
  expect(csrfVerdict({ ...action, origin: "http://127.0.0.1:4444" }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
  expect(csrfVerdict({ ...action, cookie: `theme=dark; __Secure-better-auth.session_token=x`, origin: undefined }, ORIGIN)).toEqual({
    ok: false,
    code: "foreign_origin",
  });
});

test("bearer tokens on REST, cookieless requests and safe methods are not affected", () => {
  expect(csrfVerdict({ ...base, authorization: "Bearer errata_x", origin: undefined, contentType: "text/plain" }, ORIGIN)).toEqual({
    ok: true,
  });
  expect(csrfVerdict({ ...base, cookie: undefined, origin: undefined, contentType: "multipart/form-data" }, ORIGIN)).toEqual({ ok: true });
  expect(csrfVerdict({ ...base, cookie: "theme=dark", origin: "http://evil.test" }, ORIGIN)).toEqual({ ok: true });
  expect(csrfVerdict({ ...base, method: "GET", origin: "http://evil.test" }, ORIGIN)).toEqual({ ok: true });
});

test("sign-in, sign-out and setup are checked with or without a cookie", () => {
  const signIn = { ...base, path: "/api/auth/sign-in/email", cookie: undefined };
  expect(csrfVerdict({ ...signIn, origin: "http://127.0.0.1:1" }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
  expect(csrfVerdict({ ...signIn, path: "/api/setup", origin: undefined }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
  expect(csrfVerdict(signIn, ORIGIN)).toEqual({ ok: true });
  // A bearer header does not exempt non-REST paths: Better Auth reads the cookie, not the token.
  expect(csrfVerdict({ ...signIn, authorization: "Bearer x", origin: undefined }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
});

test("SAML's ACS takes the identity provider's cross-origin form post (it reads no cookie); its neighbours do not", () => {
  const acs = {
    ...base,
    path: "/api/sso/acme/saml/acs",
    origin: "https://idp.example.com",
    contentType: "application/x-www-form-urlencoded",
  };
  expect(csrfVerdict(acs, ORIGIN)).toEqual({ ok: true });
  expect(csrfVerdict({ ...acs, path: "/api/sso/acme/saml/acs/extra" }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
  expect(csrfVerdict({ ...acs, path: "/api/auth/sign-in/email" }, ORIGIN)).toEqual({ ok: false, code: "foreign_origin" });
});
