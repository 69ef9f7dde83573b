import { describe, expect, test } from "vitest";
import { ATTRIBUTE_PRESETS, personFromAssertion } from "./attributes";

describe("what an assertion says about the person", () => {
  test("Entra's default claim names", () => {
    const p = personFromAssertion(
      "9f3c-opaque",
      {
        "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress": "Ada@Example.com",
        "http://schemas.microsoft.com/identity/claims/displayname": "Ada Lovelace",
        "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups": ["g-1", "g-2", "g-1"],
      },
      ATTRIBUTE_PRESETS.entra.mapping,
    );
    expect(p).toEqual({ subject: "9f3c-opaque", email: "ada@example.com", name: "Ada Lovelace", groups: ["g-1", "g-2"] });
  });

  test("Okta: first and last names joined; the NameID stands in for a missing email attribute", () => {
    const p = personFromAssertion(
      "grace@example.com",
      { firstName: "Grace", lastName: "Hopper", groups: "navy" },
      ATTRIBUTE_PRESETS.okta.mapping,
    );
    expect(p).toEqual({ subject: "grace@example.com", email: "grace@example.com", name: "Grace Hopper", groups: ["navy"] });
  });

  test("no address anywhere: no email (the ACS refuses with saml_no_email)", () => {
    expect(personFromAssertion("opaque-id", { email: "not an address" }, ATTRIBUTE_PRESETS.google.mapping).email).toBeNull();
  });
});
