/**
 * SCIM list filters (RFC 7644 §3.4.2.2) as identity providers send them: Okta and Entra ask
 * `userName eq "…"`, Entra also `externalId eq "…"` and, for groups, `displayName eq "…"`, joined
 * by `and` at most. Parsed with scim2-parse-filter; anything beyond equality on the attributes a
 * list supports is refused (`scim_invalid_filter`), never silently widened to "everything".
 */
import { type Filter, parse } from "scim2-parse-filter";
import { AppError } from "../errors";

/** Attribute (lowercased, schema prefix removed) → the value it must equal. */
export type ScimEquals = Record<string, string>;

const CORE_PREFIX = /^urn:ietf:params:scim:schemas:core:2\.0:(?:User|Group):/i;

export function parseScimFilter(filter: string | null | undefined, allowed: readonly string[]): ScimEquals {
  if (filter === null || filter === undefined || filter.trim() === "") return {};
  let tree: Filter;
  try {
    tree = parse(filter);
  } catch {
    throw new AppError("scim_invalid_filter", `The filter could not be parsed: ${filter.slice(0, 200)}`);
  }
  const out: ScimEquals = {};
  const visit = (f: Filter): void => {
    if (f.op === "and") {
      for (const part of f.filters) visit(part);
      return;
    }
    if (f.op !== "eq") throw new AppError("scim_invalid_filter", `Only "eq" (and "and") filters are supported, not "${f.op}".`);
    const attr = f.attrPath.replace(CORE_PREFIX, "").toLowerCase();
    if (!allowed.includes(attr))
      throw new AppError("scim_invalid_filter", `Filtering on "${f.attrPath}" is not supported here (${allowed.join(", ")}).`);
    if (typeof f.compValue !== "string") throw new AppError("scim_invalid_filter", `Compare "${f.attrPath}" with a string.`);
    out[attr] = f.compValue;
  };
  visit(tree);
  return out;
}
