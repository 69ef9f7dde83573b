/**
 * SCIM PATCH (RFC 7644 §3.5.2) as Okta and Microsoft Entra send it, read into the few changes
 * Errata keeps. Their shapes differ and both must work:
 *
 *  - Okta deactivates with a path-less replace: `{op: "replace", value: {active: false}}`; renames
 *    a group with `{op: "replace", value: {id, displayName}}`; adds members with
 *    `{op: "add", path: "members", value: [{value, display}]}` and removes one with
 *    `{op: "remove", path: "members[value eq \"…\"]"}`.
 *  - Entra capitalises ops (`Replace`, `Add`, `Remove`), sends `{path: "active", value: "False"}`
 *    (a string), `emails[type eq "work"].value`, `name.givenName`, and removes members with
 *    `{op: "Remove", path: "members", value: [{value}]}`.
 *
 * Attributes Errata does not keep (phone numbers, titles, the enterprise extension…) are accepted
 * and ignored, as providers send whole profiles; a malformed operation is refused.
 */
import { parse } from "scim2-parse-filter";
import { AppError } from "../errors";

export interface UserChanges {
  active?: boolean;
  userName?: string;
  externalId?: string | null;
  displayName?: string;
  givenName?: string;
  familyName?: string;
  formatted?: string;
  email?: string;
}

export interface GroupChanges {
  displayName?: string;
  externalId?: string | null;
  /** members to add (SCIM user ids) */
  add: string[];
  /** members to remove */
  remove: string[];
  /** the whole member list, when an operation replaces it */
  replace?: string[];
}

interface Operation {
  op: "add" | "replace" | "remove";
  path: string | null;
  value: unknown;
}

const CORE_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(?:User|Group):/i;
const EXTENSION = /^urn:/i;

function invalid(message: string): AppError {
  return new AppError("scim_invalid_value", message);
}

/** The operations of a PatchOp body, ops lowercased and paths without the core schema prefix. */
export function operationsOf(body: unknown): Operation[] {
  const ops =
    (body as { Operations?: unknown; operations?: unknown } | null)?.Operations ?? (body as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(ops) || ops.length === 0)
    throw invalid('A PATCH body needs an "Operations" array (urn:ietf:params:scim:api:messages:2.0:PatchOp).');
  if (ops.length > 1000) throw invalid("Too many operations in one PATCH (1000 at most).");
  return ops.map((raw, i) => {
    const o = raw as { op?: unknown; path?: unknown; value?: unknown };
    const op = typeof o?.op === "string" ? o.op.toLowerCase() : "";
    if (op !== "add" && op !== "replace" && op !== "remove") throw invalid(`Operation ${i + 1}: "op" must be add, replace or remove.`);
    if (o.path !== undefined && o.path !== null && typeof o.path !== "string")
      throw invalid(`Operation ${i + 1}: "path" must be a string.`);
    const path = typeof o.path === "string" && o.path.trim() ? o.path.trim().replace(CORE_PREFIX, "") : null;
    if (op !== "remove" && o.value === undefined) throw invalid(`Operation ${i + 1}: "${op}" needs a "value".`);
    return { op, path, value: o.value };
  });
}

/** SCIM booleans as providers send them: true/false, or Entra's strings "True"/"False". */
export function scimBoolean(value: unknown, what: string): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "string" && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === "true";
  throw invalid(`"${what}" must be true or false.`);
}

function scimString(value: unknown, what: string, max = 500): string {
  if (typeof value !== "string") throw invalid(`"${what}" must be a string.`);
  const s = value.trim();
  if (s.length > max) throw invalid(`"${what}" is longer than ${max} characters.`);
  return s;
}

/** The work (else primary, else first) address of a SCIM `emails` array. */
export function emailOf(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined;
  const list = emails.filter(
    (e): e is { value: string; type?: unknown; primary?: unknown } => typeof (e as { value?: unknown })?.value === "string",
  );
  const pick =
    list.find((e) => e.primary === true || e.primary === "True" || e.primary === "true") ?? list.find((e) => e.type === "work") ?? list[0];
  return pick?.value.trim();
}

/** One attribute of a user set to `value` (attribute lowercased, without schema prefix). */
function setUserAttribute(out: UserChanges, attr: string, value: unknown): void {
  switch (attr) {
    case "active":
      out.active = scimBoolean(value, "active");
      return;
    case "username":
      out.userName = scimString(value, "userName", 320);
      return;
    case "externalid":
      out.externalId = value === null ? null : scimString(value, "externalId");
      return;
    case "displayname":
      out.displayName = scimString(value, "displayName", 128);
      return;
    case "name.givenname":
      out.givenName = scimString(value, "name.givenName", 128);
      return;
    case "name.familyname":
      out.familyName = scimString(value, "name.familyName", 128);
      return;
    case "name.formatted":
      out.formatted = scimString(value, "name.formatted", 128);
      return;
    case "name": {
      const n = (value ?? {}) as Record<string, unknown>;
      if (typeof n !== "object") throw invalid('"name" must be an object.');
      for (const [k, v] of Object.entries(n)) if (v !== null && v !== undefined) setUserAttribute(out, `name.${k.toLowerCase()}`, v);
      return;
    }
    case "emails": {
      const email = emailOf(Array.isArray(value) ? value : [value]);
      if (email) out.email = email;
      return;
    }
    default:
      // emails[type eq "work"].value (Entra), emails[primary eq true].value
      if (/^emails\[.*\]\.value$/.test(attr)) {
        out.email = scimString(value, "emails.value", 320);
        return;
      }
      // Everything else Errata does not keep (phoneNumbers, title, locale, the enterprise extension…).
      if (EXTENSION.test(attr)) return;
  }
}

export function interpretUserPatch(body: unknown): UserChanges {
  const out: UserChanges = {};
  for (const o of operationsOf(body)) {
    if (o.op === "remove") {
      if (o.path?.toLowerCase() === "active") throw invalid('"active" cannot be removed; replace it with false.');
      continue; // removing an attribute Errata keeps only as a copy (names, externalId) changes nothing that matters
    }
    if (o.path) {
      setUserAttribute(out, o.path.toLowerCase(), o.value);
      continue;
    }
    if (typeof o.value !== "object" || o.value === null || Array.isArray(o.value))
      throw invalid(`A "${o.op}" without "path" needs an object value.`);
    for (const [k, v] of Object.entries(o.value)) setUserAttribute(out, k.replace(CORE_PREFIX, "").toLowerCase(), v);
  }
  return out;
}

/** The user ids of a SCIM members array (`[{value: id, display?}]`). */
export function memberIdsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((m, i) => {
    const id = (m as { value?: unknown } | null)?.value;
    if (typeof id !== "string" || !id.trim()) throw invalid(`Member ${i + 1} needs a "value" (the user's id).`);
    return id.trim();
  });
}

/** `members[value eq "…"]`: the member it names. */
function memberOfPath(path: string): string {
  const inner = /^members\[(.*)\]$/i.exec(path)?.[1];
  if (inner === undefined) throw invalid(`Unsupported path "${path}".`);
  let f: ReturnType<typeof parse>;
  try {
    f = parse(inner);
  } catch {
    throw invalid(`Unsupported path "${path}".`);
  }
  if (f.op !== "eq" || !("attrPath" in f) || f.attrPath.toLowerCase() !== "value" || typeof f.compValue !== "string")
    throw invalid(`Unsupported path "${path}": use members[value eq "<id>"].`);
  return f.compValue;
}

export function interpretGroupPatch(body: unknown): GroupChanges {
  const out: GroupChanges = { add: [], remove: [] };
  const replaceMembers = (ids: string[]) => {
    out.replace = ids;
    out.add = [];
    out.remove = [];
  };
  for (const o of operationsOf(body)) {
    const path = o.path?.toLowerCase() ?? null;
    if (path === null) {
      if (o.op === "remove") throw invalid('A "remove" needs a "path".');
      if (typeof o.value !== "object" || o.value === null || Array.isArray(o.value))
        throw invalid(`A "${o.op}" without "path" needs an object value.`);
      const v = o.value as Record<string, unknown>;
      for (const [key, val] of Object.entries(v)) {
        const k = key.replace(CORE_PREFIX, "").toLowerCase();
        if (k === "displayname") out.displayName = scimString(val, "displayName", 128);
        else if (k === "externalid") out.externalId = val === null ? null : scimString(val, "externalId");
        else if (k === "members") {
          if (o.op === "replace") replaceMembers(memberIdsOf(val));
          else out.add.push(...memberIdsOf(val));
        }
      }
      continue;
    }
    if (path === "displayname") {
      if (o.op === "remove") throw invalid('"displayName" cannot be removed.');
      out.displayName = scimString(o.value, "displayName", 128);
    } else if (path === "externalid") {
      out.externalId = o.op === "remove" || o.value === null ? null : scimString(o.value, "externalId");
    } else if (path === "members") {
      if (o.op === "add") out.add.push(...memberIdsOf(o.value));
      else if (o.op === "replace") replaceMembers(memberIdsOf(o.value));
      else if (o.value === undefined || o.value === null) replaceMembers([]);
      else out.remove.push(...memberIdsOf(o.value));
    } else if (path.startsWith("members[")) {
      if (o.op !== "remove") throw invalid(`Only "remove" may name one member by path ("${o.path}").`);
      out.remove.push(memberOfPath(o.path as string));
    } else if (!EXTENSION.test(path)) {
      throw invalid(`Unsupported path "${o.path}" for a group (displayName, externalId, members).`);
    }
  }
  return out;
}
