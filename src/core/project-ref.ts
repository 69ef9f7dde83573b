/**
 * Sentry's `project_id_or_slug`: every `/projects/{org}/{project}/…` route takes the project's slug
 * or its numeric id (sentry-mcp, the JS `sentry` CLI and scripts built on the ids of other answers
 * send ids). A slug wins: slugs may be all digits, and an existing slug must keep naming its project.
 */

/** The project id a reference could name (all digits, within a safe integer), else null. */
export function projectIdOfRef(ref: string): number | null {
  if (!/^\d{1,15}$/.test(ref)) return null;
  const id = Number(ref);
  return id > 0 ? id : null;
}

/** The project a reference names among an organization's projects: by slug, else by id. */
export function pickProjectByRef<T extends { id: number; slug: string }>(projects: Iterable<T>, ref: string): T | undefined {
  const all = [...projects];
  const id = projectIdOfRef(ref);
  return all.find((p) => p.slug === ref) ?? (id === null ? undefined : all.find((p) => p.id === id));
}
