/**
 * Sentry's project update body (`PUT /api/0/projects/{org}/{project}/`) as its clients send it:
 * the keys Errata acts on are picked by name, everything else Sentry accepts there (isBookmarked,
 * options, digests…) is ignored as Sentry ignores what a caller may not change. Each part of the
 * body has one picker, so more (grouping rules, …) are added beside these without touching them.
 * Values are not checked here: the service validates them and names the field.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** name, slug, platform: the project's identity. */
export function projectIdentityPatch(body: unknown): { name?: unknown; slug?: unknown; platform?: unknown } {
  if (!isObj(body)) return {};
  const out: { name?: unknown; slug?: unknown; platform?: unknown } = {};
  for (const key of ["name", "slug", "platform"] as const) if (body[key] !== undefined && body[key] !== null) out[key] = body[key];
  return out;
}
