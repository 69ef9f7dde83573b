/**
 * The shapes SCIM 2.0 clients read (RFC 7643): users, groups, list responses, errors, and the
 * discovery documents (ServiceProviderConfig, Schemas, ResourceTypes) Okta and Entra fetch.
 */
import type { ErrorCode } from "../../core/errors";
import type { IdpGroupRow } from "../../storage/identity/idp-groups";
import type { ScimUserRow } from "../../storage/identity/scim";

export const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
export const GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group";
const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
/** The most resources one page holds (ServiceProviderConfig says so too). */
export const MAX_PAGE = 100;

const iso = (ms: number) => new Date(ms).toISOString();

export function userResource(base: string, u: ScimUserRow): Record<string, unknown> {
  return {
    schemas: [USER_SCHEMA],
    id: u.userId,
    ...(u.externalId ? { externalId: u.externalId } : {}),
    userName: u.userName ?? u.email,
    name: { formatted: u.name },
    displayName: u.name,
    emails: [{ value: u.email, type: "work", primary: true }],
    active: u.active,
    meta: {
      resourceType: "User",
      created: iso(u.createdAt),
      lastModified: iso(u.updatedAt ?? u.createdAt),
      location: `${base}/Users/${encodeURIComponent(u.userId)}`,
    },
  };
}

export function groupResource(base: string, g: IdpGroupRow, members: { userId: string; email: string }[] | null): Record<string, unknown> {
  return {
    schemas: [GROUP_SCHEMA],
    id: g.scimId,
    displayName: g.name,
    ...(g.externalId ? { externalId: g.externalId } : {}),
    ...(members
      ? { members: members.map((m) => ({ value: m.userId, display: m.email, $ref: `${base}/Users/${encodeURIComponent(m.userId)}` })) }
      : {}),
    meta: { resourceType: "Group", created: iso(g.createdAt), lastModified: iso(g.updatedAt), location: `${base}/Groups/${g.scimId}` },
  };
}

export function listResponse(resources: unknown[], total: number, startIndex: number): Record<string, unknown> {
  return { schemas: [LIST_SCHEMA], totalResults: total, startIndex, itemsPerPage: resources.length, Resources: resources };
}

const SCIM_TYPES: Partial<Record<ErrorCode, string>> = {
  scim_invalid_filter: "invalidFilter",
  scim_invalid_value: "invalidValue",
  validation_failed: "invalidValue",
  scim_uniqueness: "uniqueness",
  last_owner: "mutability",
};

/** RFC 7644 §3.12's error, with the catalogue code beside it. */
export function errorBody(code: ErrorCode, status: number, detail: string, requestId: string): Record<string, unknown> {
  const scimType = SCIM_TYPES[code];
  return { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail, code, request_id: requestId };
}

export function serviceProviderConfig(): Record<string, unknown> {
  return {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "OAuth Bearer Token",
        description: "The organization's SCIM token (Settings → Single sign-on → SCIM), sent as Authorization: Bearer.",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig" },
  };
}

function attribute(name: string, type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    type,
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...extra,
  };
}

export function schemas(): Record<string, unknown>[] {
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: USER_SCHEMA,
      name: "User",
      description: "A member of the organization",
      attributes: [
        attribute("userName", "string", { required: true, uniqueness: "server" }),
        attribute("name", "complex", {
          subAttributes: [attribute("formatted", "string"), attribute("givenName", "string"), attribute("familyName", "string")],
        }),
        attribute("displayName", "string"),
        attribute("emails", "complex", {
          multiValued: true,
          subAttributes: [attribute("value", "string"), attribute("type", "string"), attribute("primary", "boolean")],
        }),
        attribute("active", "boolean"),
        attribute("externalId", "string", { caseExact: true }),
      ],
      meta: { resourceType: "Schema", location: `/Schemas/${USER_SCHEMA}` },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
      id: GROUP_SCHEMA,
      name: "Group",
      description: "An identity-provider group; it becomes a team",
      attributes: [
        attribute("displayName", "string", { required: true, uniqueness: "server" }),
        attribute("members", "complex", {
          multiValued: true,
          subAttributes: [attribute("value", "string", { mutability: "immutable" }), attribute("display", "string")],
        }),
        attribute("externalId", "string", { caseExact: true }),
      ],
      meta: { resourceType: "Schema", location: `/Schemas/${GROUP_SCHEMA}` },
    },
  ];
}

export function resourceTypes(): Record<string, unknown>[] {
  return [
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "User",
      name: "User",
      endpoint: "/Users",
      schema: USER_SCHEMA,
      meta: { resourceType: "ResourceType", location: "/ResourceTypes/User" },
    },
    {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "Group",
      name: "Group",
      endpoint: "/Groups",
      schema: GROUP_SCHEMA,
      meta: { resourceType: "ResourceType", location: "/ResourceTypes/Group" },
    },
  ];
}

/** `startIndex` (1-based) and `count` of a list request, clamped to what a page may hold. */
export function pageOf(query: URLSearchParams): { startIndex: number; offset: number; limit: number } {
  const start = Number.parseInt(query.get("startIndex") ?? "1", 10);
  const count = Number.parseInt(query.get("count") ?? String(MAX_PAGE), 10);
  const startIndex = Number.isFinite(start) && start >= 1 ? start : 1;
  const limit = Number.isFinite(count) ? Math.min(Math.max(count, 0), MAX_PAGE) : MAX_PAGE;
  return { startIndex, offset: startIndex - 1, limit };
}
