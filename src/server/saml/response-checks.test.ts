import { describe, expect, test } from "vitest";
import { codeForLibraryError, decodeResponse, precheckResponse } from "./response-checks";

const ACS = "https://errata.test/api/sso/acme/saml/acs";
const sig = (id: string) =>
  `<ds:Signature xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:SignedInfo><ds:Reference URI="#${id}"/></ds:SignedInfo></ds:Signature>`;
const assertion = (id: string, signed = true) =>
  `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}"><saml:Issuer>idp</saml:Issuer>${signed ? sig(id) : ""}<saml:Subject><saml:NameID>a@b.test</saml:NameID></saml:Subject></saml:Assertion>`;
const response = (inner: string, attrs = "") =>
  `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" ID="_r1"${attrs}>${inner}</samlp:Response>`;
const code = (fn: () => unknown) => {
  try {
    fn();
    return "accepted";
  } catch (err) {
    return (err as { code?: string }).code;
  }
};

describe("structural checks before the signature", () => {
  test("a signed assertion in a response passes, and its InResponseTo is read", () => {
    expect(precheckResponse(response(assertion("_a1"), ` InResponseTo="_q1" Destination="${ACS}"`), ACS)).toEqual({ inResponseTo: "_q1" });
  });

  test("DTDs, comments and what is not a SAML response are malformed", () => {
    expect(code(() => precheckResponse(`<!DOCTYPE x>${response(assertion("_a1"))}`, ACS))).toBe("saml_malformed");
    expect(code(() => precheckResponse(response(assertion("_a1")).replace("a@b.test", "a@b<!---->.test"), ACS))).toBe("saml_malformed");
    expect(code(() => precheckResponse("<Response/>", ACS))).toBe("saml_malformed");
    expect(code(() => precheckResponse("<<<", ACS))).toBe("saml_malformed");
  });

  test("no signature anywhere is unsigned", () => {
    expect(code(() => precheckResponse(response(assertion("_a1", false)), ACS))).toBe("saml_unsigned");
  });

  test("two assertions, duplicate ids, a nested response or a signature naming another element are wrapping", () => {
    expect(code(() => precheckResponse(response(assertion("_a1") + assertion("_a2", false)), ACS))).toBe("saml_wrapped");
    expect(code(() => precheckResponse(response(assertion("_r1")), ACS))).toBe("saml_wrapped");
    expect(code(() => precheckResponse(response(response(assertion("_a1")).replace('ID="_r1"', 'ID="_r2"')), ACS))).toBe("saml_wrapped");
    expect(code(() => precheckResponse(response(assertion("_a1").replace('URI="#_a1"', 'URI="#_other"')), ACS))).toBe("saml_wrapped");
  });

  test("a Destination other than the ACS is the wrong recipient", () => {
    expect(code(() => precheckResponse(response(assertion("_a1"), ' Destination="https://evil.test/acs"'), ACS))).toBe(
      "saml_wrong_recipient",
    );
  });

  test("the posted value must be base64 of a bounded size", () => {
    expect(code(() => decodeResponse(undefined))).toBe("saml_malformed");
    expect(code(() => decodeResponse("not base64 at all!"))).toBe("saml_malformed");
    expect(code(() => decodeResponse("A".repeat(300 * 1024)))).toBe("saml_malformed");
    expect(decodeResponse(Buffer.from("<x/>").toString("base64"))).toBe("<x/>");
  });
});

test("node-saml's refusals are named", () => {
  expect(codeForLibraryError("Invalid signature")).toBe("saml_signature_invalid");
  expect(codeForLibraryError("Invalid signature: multiple assertions")).toBe("saml_wrapped");
  expect(codeForLibraryError("SAML assertion audience mismatch. Expected: x Received: y")).toBe("saml_wrong_audience");
  expect(codeForLibraryError("SAML assertion expired: clocks skewed too much")).toBe("saml_expired");
  expect(codeForLibraryError("InResponseTo is not valid")).toBe("saml_unknown_request");
  expect(codeForLibraryError("SAML provider returned Responder error: unspecified")).toBe("saml_idp_error");
  expect(codeForLibraryError("something else")).toBe("saml_malformed");
});
