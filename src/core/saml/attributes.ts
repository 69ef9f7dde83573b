/**
 * What a SAML assertion says about the person, read through the organization's attribute mapping:
 * the email (an attribute, else the NameID when it is an address), the display name (one attribute,
 * or several joined: "firstName,lastName"), and the groups (a multi-valued attribute). Presets carry
 * the attribute names Okta, Microsoft Entra ID and Google Workspace use by default.
 */

export interface AttributeMapping {
  email: string;
  name: string;
  groups: string;
}

export const ATTRIBUTE_PRESETS = {
  okta: { label: "Okta", mapping: { email: "email", name: "firstName,lastName", groups: "groups" } },
  entra: {
    label: "Microsoft Entra ID",
    mapping: {
      email: "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
      name: "http://schemas.microsoft.com/identity/claims/displayname",
      groups: "http://schemas.microsoft.com/ws/2008/06/identity/claims/groups",
    },
  },
  google: { label: "Google Workspace", mapping: { email: "email", name: "firstName,lastName", groups: "groups" } },
} as const satisfies Record<string, { label: string; mapping: AttributeMapping }>;

export type AttributePreset = keyof typeof ATTRIBUTE_PRESETS;

export const DEFAULT_MAPPING: AttributeMapping = ATTRIBUTE_PRESETS.okta.mapping;

export interface AssertedPerson {
  /** the NameID: the person's stable key at this provider */
  subject: string;
  email: string | null;
  name: string | null;
  groups: string[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_GROUPS = 500;

function values(attributes: Record<string, unknown>, name: string): string[] {
  const raw = attributes[name];
  const list = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  return list.flatMap((v) => (typeof v === "string" ? [v.trim()] : typeof v === "number" ? [String(v)] : [])).filter(Boolean);
}

/** Reads the person from an assertion's NameID and attributes (attribute name → value or values). */
export function personFromAssertion(nameId: string, attributes: Record<string, unknown>, mapping: AttributeMapping): AssertedPerson {
  const emailAttr = values(attributes, mapping.email)[0];
  const email = emailAttr && EMAIL.test(emailAttr) ? emailAttr : EMAIL.test(nameId) ? nameId : null;
  const nameParts = mapping.name
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => values(attributes, n)[0])
    .filter((v): v is string => Boolean(v));
  const name = nameParts.length ? nameParts.join(" ").slice(0, 128) : null;
  const groups = [...new Set(values(attributes, mapping.groups))].slice(0, MAX_GROUPS).map((g) => g.slice(0, 200));
  return { subject: nameId, email: email ? email.toLowerCase() : null, name, groups };
}
