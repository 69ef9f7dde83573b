/**
 * Sentry's `Link` pagination header (sentry-cli follows `rel="next"; results="true"`), built from
 * PUBLIC_URL — the address clients reach Errata at — not from the request's Host.
 */
export function sentryLinkHeader(publicUrl: string, url: URL, next: string | null): string {
  const base = `${publicUrl.replace(/\/+$/, "")}${url.pathname}`;
  const prev = `<${base}?cursor=>; rel="previous"; results="false"; cursor=""`;
  if (!next) return `${prev}, <${base}?cursor=>; rel="next"; results="false"; cursor=""`;
  const q = new URLSearchParams(url.searchParams);
  q.set("cursor", next);
  return `${prev}, <${base}?${q}>; rel="next"; results="true"; cursor="${next}"`;
}

/** `?limit=` as a positive integer within bounds (absent or junk: the default). */
export function limitParam(url: URL, fallback: number, max: number): number {
  const n = Number(url.searchParams.get("limit"));
  return Number.isInteger(n) && n > 0 ? Math.min(n, max) : fallback;
}
