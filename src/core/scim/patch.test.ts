import { describe, expect, test } from "vitest";
import { parseScimFilter } from "./filter";
import { interpretGroupPatch, interpretUserPatch, scimBoolean } from "./patch";

const op = (...Operations: unknown[]) => ({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations });

describe("SCIM PATCH of a user", () => {
  test("Okta deactivates with a path-less replace", () => {
    expect(interpretUserPatch(op({ op: "replace", value: { active: false } }))).toEqual({ active: false });
  });

  test('Entra deactivates with path active and the string "False"; reactivates with "True"', () => {
    expect(interpretUserPatch(op({ op: "Replace", path: "active", value: "False" }))).toEqual({ active: false });
    expect(interpretUserPatch(op({ op: "Replace", path: "active", value: "True" }))).toEqual({ active: true });
  });

  test("Entra's multi-valued and single-valued replaces; the enterprise extension is accepted and ignored", () => {
    expect(
      interpretUserPatch(
        op(
          { op: "Replace", path: 'emails[type eq "work"].value', value: "a@b.test" },
          { op: "Replace", path: "name.familyName", value: "Doe" },
          { op: "Replace", path: "userName", value: "ad@b.test" },
          { op: "Add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Eng" },
        ),
      ),
    ).toEqual({ email: "a@b.test", familyName: "Doe", userName: "ad@b.test" });
  });

  test("a path-less value with nested name and dotted keys", () => {
    expect(
      interpretUserPatch(op({ op: "replace", value: { name: { givenName: "Ann" }, "name.familyName": "Lee", externalId: "x1" } })),
    ).toEqual({
      givenName: "Ann",
      familyName: "Lee",
      externalId: "x1",
    });
  });

  test("malformed operations are refused with scim_invalid_value", () => {
    expect(() => interpretUserPatch({})).toThrow(expect.objectContaining({ code: "scim_invalid_value" }));
    expect(() => interpretUserPatch(op({ op: "move", path: "active" }))).toThrow(expect.objectContaining({ code: "scim_invalid_value" }));
    expect(() => interpretUserPatch(op({ op: "replace", path: "active", value: "maybe" }))).toThrow(
      expect.objectContaining({ code: "scim_invalid_value" }),
    );
    expect(() => interpretUserPatch(op({ op: "remove", path: "active" }))).toThrow(expect.objectContaining({ code: "scim_invalid_value" }));
  });

  test("booleans: true/false and the strings providers send", () => {
    expect([true, "true", "TRUE", " False "].map((v) => scimBoolean(v, "x"))).toEqual([true, true, true, false]);
  });
});

describe("SCIM PATCH of a group", () => {
  test("Okta: rename by path-less replace, add members, remove one by path filter", () => {
    expect(interpretGroupPatch(op({ op: "replace", value: { id: "g1", displayName: "Platform" } }))).toEqual({
      displayName: "Platform",
      add: [],
      remove: [],
    });
    expect(interpretGroupPatch(op({ op: "add", path: "members", value: [{ value: "u1", display: "a@b" }, { value: "u2" }] }))).toEqual({
      add: ["u1", "u2"],
      remove: [],
    });
    expect(interpretGroupPatch(op({ op: "remove", path: 'members[value eq "u1"]' }))).toEqual({ add: [], remove: ["u1"] });
  });

  test("Entra: capitalised ops, members removed by a value array, rename by path", () => {
    expect(
      interpretGroupPatch(
        op(
          { op: "Add", path: "members", value: [{ $ref: null, value: "u3" }] },
          { op: "Remove", path: "members", value: [{ $ref: null, value: "u1" }] },
          { op: "Replace", path: "displayName", value: "Admins" },
        ),
      ),
    ).toEqual({ add: ["u3"], remove: ["u1"], displayName: "Admins" });
  });

  test("replace of all members, and remove of all", () => {
    expect(interpretGroupPatch(op({ op: "replace", path: "members", value: [{ value: "u9" }] }))).toEqual({
      add: [],
      remove: [],
      replace: ["u9"],
    });
    expect(interpretGroupPatch(op({ op: "remove", path: "members" }))).toEqual({ add: [], remove: [], replace: [] });
  });

  test("unsupported paths and member filters are refused", () => {
    expect(() => interpretGroupPatch(op({ op: "replace", path: "owner", value: "x" }))).toThrow(
      expect.objectContaining({ code: "scim_invalid_value" }),
    );
    expect(() => interpretGroupPatch(op({ op: "remove", path: 'members[display eq "x"]' }))).toThrow(
      expect.objectContaining({ code: "scim_invalid_value" }),
    );
    expect(() => interpretGroupPatch(op({ op: "add", path: "members", value: [{ display: "no id" }] }))).toThrow(
      expect.objectContaining({ code: "scim_invalid_value" }),
    );
  });
});

describe("SCIM filters", () => {
  test("eq on the list's attributes, joined by and; case-insensitive attribute names", () => {
    expect(parseScimFilter('userName eq "a@b.test"', ["username", "externalid"])).toEqual({ username: "a@b.test" });
    expect(parseScimFilter('externalId eq "x" and UserName eq "y"', ["username", "externalid"])).toEqual({
      externalid: "x",
      username: "y",
    });
    expect(parseScimFilter(null, ["username"])).toEqual({});
  });

  test("anything else is refused, never widened to everything", () => {
    for (const f of ['userName co "a"', 'userName eq "a" or userName eq "b"', 'title eq "x"', "userName eq", "userName eq 3"])
      expect(() => parseScimFilter(f, ["username"]), f).toThrow(expect.objectContaining({ code: "scim_invalid_filter" }));
  });
});
