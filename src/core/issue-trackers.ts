/**
 * Issue trackers (issue 30): per project, where a GitHub or GitLab repository or a Jira project
 * lives, and from it a "Create issue" link prefilled with the issue's title, its Errata link and
 * the top in-app frames. Only links: Errata never calls the tracker. Every value is URL-encoded by
 * URLSearchParams; the body is bounded so the URL stays well under what browsers and trackers take.
 */
import { z } from "zod";
import { AppError } from "./errors";
import type { NormalizedEvent } from "./event";
import { validate } from "./validation";

export interface TrackerSettings {
  /** https://github.com/acme/shop */
  github: string | null;
  /** https://gitlab.com/acme/shop (groups and self-hosted instances too) */
  gitlab: string | null;
  /** the Jira site or a project URL: https://acme.atlassian.net/browse/PAY */
  jiraUrl: string | null;
  /** Jira's numeric project id (pid), which its create screen needs */
  jiraProjectId: string | null;
}

export const NO_TRACKERS: TrackerSettings = { github: null, gitlab: null, jiraUrl: null, jiraProjectId: null };

const MAX_BODY = 1_800;
const MAX_FRAMES = 5;

const httpUrl = z
  .string()
  .trim()
  .max(500, "use at most 500 characters")
  .refine((u) => /^https?:\/\//i.test(u) && URL.canParse(u), "use an http(s) URL")
  .transform((u) => u.replace(/\/+$/, ""));
const optional = <T extends z.ZodType>(s: T) =>
  z.preprocess((v) => (v === "" || v === undefined ? null : v), s.nullable()).default(null) as unknown as z.ZodType<z.output<T> | null>;

const settingsSchema = z.object({
  github: optional(
    httpUrl.refine((u) => new URL(u).pathname.split("/").filter(Boolean).length >= 2, "the repository URL: https://github.com/owner/repo"),
  ),
  gitlab: optional(
    httpUrl.refine((u) => new URL(u).pathname.split("/").filter(Boolean).length >= 2, "the project URL: https://gitlab.com/group/project"),
  ),
  jiraUrl: optional(httpUrl),
  jiraProjectId: optional(
    z
      .string()
      .trim()
      .regex(/^\d{1,18}$/, "the project's numeric id"),
  ),
});

export function parseTrackerSettings(input: unknown): TrackerSettings {
  const s = validate(settingsSchema, input) as TrackerSettings;
  if (s.jiraUrl && !s.jiraProjectId)
    throw validationError(
      "jiraProjectId",
      "Jira's create screen needs the project's numeric id (Project settings → Details, or the pid in its URL)",
    );
  return s;
}

function validationError(field: string, message: string): AppError {
  return new AppError("validation_failed", `${field}: ${message}`, { fields: [{ field, rule: "tracker", message }] });
}

/** The issue as a tracker's new issue: title and a plain-text body. */
export interface IssueForTracker {
  shortId: string;
  title: string;
  culprit: string;
  /** the absolute Errata link */
  url: string;
  frames: string[];
}

/** Top in-app frames (innermost first), `function (file:line)`; every frame when the SDK marks none. */
export function topInAppFrames(event: Pick<NormalizedEvent, "exception"> | undefined, max = MAX_FRAMES): string[] {
  const values = event?.exception?.values ?? [];
  const frames = [...(values.at(-1)?.stacktrace?.frames ?? [])].reverse();
  const marked = frames.some((f) => typeof f?.in_app === "boolean");
  return frames
    .filter((f) => !marked || f?.in_app === true)
    .slice(0, max)
    .map((f) => {
      const file = typeof f?.filename === "string" ? f.filename : typeof f?.abs_path === "string" ? f.abs_path : "?";
      const where = typeof f?.lineno === "number" ? `${file}:${f.lineno}` : file;
      return typeof f?.function === "string" && f.function ? `${f.function} (${where})` : where;
    });
}

export function trackerBody(i: IssueForTracker): string {
  const lines = [`Errata issue ${i.shortId}: ${i.url}`, ""];
  if (i.culprit) lines.push(`Culprit: ${i.culprit}`, "");
  if (i.frames.length) lines.push("Top in-app frames:", ...i.frames.map((f) => `  at ${f}`));
  const body = lines.join("\n").trimEnd();
  return body.length > MAX_BODY ? `${body.slice(0, MAX_BODY - 1)}…` : body;
}

export interface CreateLink {
  kind: "github" | "gitlab" | "jira";
  label: string;
  url: string;
}

export function createIssueLinks(s: TrackerSettings, i: IssueForTracker): CreateLink[] {
  const title = `${i.shortId}: ${i.title}`.slice(0, 250);
  const body = trackerBody(i);
  const out: CreateLink[] = [];
  if (s.github) out.push({ kind: "github", label: "GitHub", url: `${s.github}/issues/new?${new URLSearchParams({ title, body })}` });
  if (s.gitlab)
    out.push({
      kind: "gitlab",
      label: "GitLab",
      url: `${s.gitlab}/-/issues/new?${new URLSearchParams({ "issue[title]": title, "issue[description]": body })}`,
    });
  if (s.jiraUrl && s.jiraProjectId)
    out.push({
      kind: "jira",
      label: "Jira",
      url: `${new URL(s.jiraUrl).origin}/secure/CreateIssueDetails!init.jspa?${new URLSearchParams({ pid: s.jiraProjectId, summary: title, description: body })}`,
    });
  return out;
}

/** A linked tracker issue's URL: http(s) only, at most 2,000 characters. */
export function parseLinkUrl(input: unknown): string {
  const u = typeof input === "string" ? input.trim() : "";
  if (!u) throw validationError("url", "paste the tracker issue's URL");
  if (u.length > 2_000) throw validationError("url", "use at most 2,000 characters");
  if (!/^https?:\/\//i.test(u) || !URL.canParse(u)) throw validationError("url", "use an http(s) URL");
  return new URL(u).toString();
}

/** How a linked URL reads in a row: `github.com/acme/shop#12`, `PAY-7`… */
export function linkLabel(url: string): string {
  const u = new URL(url);
  const gh = /^\/([^/]+\/[^/]+)\/(?:-\/)?issues\/(\d+)/.exec(u.pathname);
  if (gh) return `${gh[1]}#${gh[2]}`;
  const jira = /\/browse\/([A-Z][A-Z0-9_]+-\d+)/.exec(u.pathname);
  if (jira) return jira[1] as string;
  return `${u.host}${u.pathname.length > 1 ? u.pathname : ""}`.slice(0, 60);
}
