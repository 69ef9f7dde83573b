/**
 * Sentry's releases, deploys and commits (`/organizations/{org}/releases/`, `…/deploys/`,
 * `…/commits/`) as Errata stores them (issue 32), without I/O. Dates Sentry writes as ISO strings
 * become epoch ms; a release keeps its creation time, which orders versions that are not semver
 * ("resolved in the next release" keeps its meaning).
 */
import { z } from "zod";

const id = z.union([z.string(), z.number()]).transform(String);
const date = z.string().nullish();

export const sentryReleaseSchema = z.object({
  version: z.string().min(1),
  dateCreated: date,
  dateStarted: date,
  dateReleased: date,
  ref: z.string().nullish(),
  url: z.string().nullish(),
  status: z.string().nullish(),
  projects: z.array(z.object({ slug: z.string() })).nullish(),
});

export const sentryDeploySchema = z.object({
  id: id.optional(),
  environment: z.string().min(1),
  name: z.string().nullish(),
  url: z.string().nullish(),
  dateStarted: date,
  dateFinished: date,
});

export const sentryCommitSchema = z.object({
  id: z.string().min(1),
  message: z.string().nullish(),
  dateCreated: date,
  repository: z.object({ name: z.string().nullish() }).nullish(),
  previousCommit: z.string().nullish(),
  author: z.object({ name: z.string().nullish(), email: z.string().nullish() }).nullish(),
});

export type SentryRelease = z.infer<typeof sentryReleaseSchema>;
export type SentryDeploy = z.infer<typeof sentryDeploySchema>;
export type SentryCommit = z.infer<typeof sentryCommitSchema>;

/** An ISO date as epoch ms; null when absent or not a date. */
export function epochMs(s: string | null | undefined): number | null {
  if (!s) return null;
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : null;
}

const MAX_VERSION = 250;

/** The version as Errata's release API takes it (trimmed, 1–250 characters, no control characters). */
export function importableVersion(v: string): string | null {
  const t = v.trim();
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (!t || t.length > MAX_VERSION || /[\u0000-\u001f\u007f]/.test(t)) return null;
  return t;
}

export interface ImportedReleaseMeta {
  dateStarted: number | null;
  dateReleased: number | null;
  ref: string | null;
  url: string | null;
  status: string;
}

export function importedReleaseMeta(r: SentryRelease): ImportedReleaseMeta {
  return {
    dateStarted: epochMs(r.dateStarted),
    dateReleased: epochMs(r.dateReleased),
    ref: r.ref?.slice(0, 200) || null,
    url: r.url?.slice(0, 2000) || null,
    status: r.status === "archived" ? "archived" : "open",
  };
}

export interface ImportedCommit {
  repository: string;
  id: string;
  previousCommit: string | null;
  authorName: string | null;
  authorEmail: string | null;
  message: string | null;
  timestamp: number | null;
}

export function importedCommit(c: SentryCommit): ImportedCommit {
  return {
    repository: (c.repository?.name ?? "").slice(0, 200),
    id: c.id.slice(0, 64),
    previousCommit: c.previousCommit?.slice(0, 64) || null,
    authorName: c.author?.name?.slice(0, 200) || null,
    authorEmail: c.author?.email?.slice(0, 200).toLowerCase() || null,
    message: c.message?.slice(0, 10_000) ?? null,
    timestamp: epochMs(c.dateCreated),
  };
}

export interface ImportedDeploy {
  environment: string;
  name: string | null;
  url: string | null;
  dateStarted: number | null;
  dateFinished: number;
}

/** A deploy, or null when it has no finish time (Errata orders deploys by it). */
export function importedDeploy(d: SentryDeploy): ImportedDeploy | null {
  const finished = epochMs(d.dateFinished);
  if (finished === null) return null;
  return {
    environment: d.environment.slice(0, 64),
    name: d.name?.slice(0, 64) || null,
    url: d.url?.slice(0, 2000) || null,
    dateStarted: epochMs(d.dateStarted),
    dateFinished: finished,
  };
}

/** A deploy's identity for a second run: where, when it finished, and its name. */
export function deployKey(d: Pick<ImportedDeploy, "environment" | "dateFinished" | "name">): string {
  return `${d.environment}\u0000${d.dateFinished}\u0000${d.name ?? ""}`;
}
