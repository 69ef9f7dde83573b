/**
 * Page helpers: the services (request time only), the viewer, and mapping service errors to
 * Next's navigation (not_found/forbidden → 404, unauthenticated → /login).
 * Only types are imported from src/server and src/core; implementations live behind `app()`.
 */
import { headers } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { connection } from "next/server";
import { cache } from "react";
import { app } from "@/server/app-context";
import type { AppServices } from "@/server/services";
import type { Viewer } from "@/server/types";

/** The services, after telling Next this render happens at request time (never at build). */
export async function services(): Promise<AppServices> {
  await connection();
  return app();
}

// One session lookup per request, however many layouts and pages ask for the viewer.
export const currentViewer = cache(async (): Promise<Viewer | null> => {
  const s = await services();
  return s.session.viewerFromHeaders(await headers());
});

/** The viewer, or a redirect to /login that comes back to `nextPath` afterwards. */
export async function requireViewer(nextPath: string): Promise<Viewer> {
  const viewer = await currentViewer();
  if (!viewer) redirect(`/login?next=${encodeURIComponent(nextPath)}`);
  return viewer;
}

export function errorCode(err: unknown): string | null {
  if (typeof err !== "object" || err === null) return null;
  const e = err as { name?: unknown; code?: unknown };
  return e.name === "AppError" && typeof e.code === "string" ? e.code : null;
}

/** A query the services refused to parse (`invalid_query`, `validation_failed`): its message and position, for display. */
export function queryErrorOf(err: unknown): { message: string; position?: number } | null {
  const code = errorCode(err);
  if (code !== "invalid_query" && code !== "validation_failed") return null;
  const e = err as { message?: unknown; position?: unknown };
  return {
    message: typeof e.message === "string" ? e.message : "The search query could not be parsed.",
    position: typeof e.position === "number" ? e.position : undefined,
  };
}

/** Awaits a service call; a missing or forbidden resource becomes the 404 page. */
export async function orNotFound<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (err) {
    const code = errorCode(err);
    if (code === "not_found" || code === "forbidden") notFound();
    if (code === "unauthenticated") redirect("/login");
    throw err;
  }
}

/** Builds a path with query parameters, leaving out empty ones. */
export function withQuery(path: string, params: Record<string, string | null | undefined>): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) qs.set(k, v);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** First value of a search param (Next gives string | string[] | undefined). */
export function param(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/**
 * `/{org}/issues/WEB-12[/rest]`: a short id in an issue URL redirects to the numeric URL (what a
 * person pastes from an alert, a commit message or Sentry's habits); anything else not numeric is a 404.
 */
export async function redirectShortId(org: string, id: string, rest: string, search: string): Promise<never> {
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/issues/${encodeURIComponent(id)}${rest}${search}`);
  const found = await (await services()).issueRedirects.byShortId(viewer, org, id).catch(() => null);
  if (!found) notFound();
  redirect(`/${encodeURIComponent(org)}/issues/${found.issueId}${rest}${search}`);
}
