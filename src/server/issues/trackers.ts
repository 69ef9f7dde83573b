/**
 * Issue trackers (issue 30): a project's GitHub / GitLab / Jira settings (admins and owners: the
 * permission table's `project.write`), the issue page's "Create issue" links built from them, and
 * "Link an existing issue": a URL kept on the issue (members: `issue.update`), shown on the issue
 * page and in the stream. Nothing here calls a tracker.
 */

import { formatShortId } from "../../core/alerts/message";
import type { NormalizedEvent } from "../../core/event";
import {
  type CreateLink,
  createIssueLinks,
  linkLabel,
  NO_TRACKERS,
  parseLinkUrl,
  parseTrackerSettings,
  type TrackerSettings,
  topInAppFrames,
} from "../../core/issue-trackers";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { getEvent } from "../../storage/events/events";
import { deleteIssueLink, issueLinks, setIssueLink } from "../../storage/issues/links";
import { readProjectSettings, writeProjectSettings } from "../../storage/orgs/projects";
import { firstEventRef } from "../../storage/ownership/ownership";
import type { Access } from "../access/access";
import { requirePermission } from "../access/access";
import { permits } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";

export interface TrackerSettingsView {
  canManage: boolean;
  settings: TrackerSettings;
}

export interface IssueTrackers {
  createLinks: CreateLink[];
  link: { url: string; label: string; createdAt: number } | null;
  /** the viewer may link and unlink (members and up) */
  canLink: boolean;
  /** no tracker set for the project: the page says where to set one */
  configured: boolean;
  /** admins: the settings page is theirs to change */
  canConfigure: boolean;
}

export interface TrackerServices {
  settings(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<TrackerSettingsView>;
  saveSettings(viewer: Viewer, orgSlug: string, projectSlug: string, input: unknown): Promise<TrackerSettings>;
  forIssue(viewer: Viewer, orgSlug: string, issueId: number): Promise<IssueTrackers>;
  link(viewer: Viewer, orgSlug: string, issueId: number, url: unknown): Promise<{ url: string; label: string }>;
  unlink(viewer: Viewer, orgSlug: string, issueId: number): Promise<void>;
  /** The links of a stream page's issues (already authorized by the stream read). */
  linksOf(issueIds: number[]): Promise<Map<number, { url: string; label: string }>>;
}

export interface TrackerDeps {
  db: Db;
  now: () => number;
  publicUrl: string;
  access: Access;
}

const KEY = "issueTrackers";

function storedSettings(all: Record<string, unknown>): TrackerSettings {
  const v = all[KEY];
  if (typeof v !== "object" || v === null) return NO_TRACKERS;
  const o = v as Record<string, unknown>;
  const str = (x: unknown) => (typeof x === "string" && x ? x : null);
  return { github: str(o.github), gitlab: str(o.gitlab), jiraUrl: str(o.jiraUrl), jiraProjectId: str(o.jiraProjectId) };
}

export function createTrackerServices(deps: TrackerDeps): TrackerServices {
  const { db, now, access } = deps;

  const project = (viewer: Viewer, orgSlug: string, projectSlug: string, write: boolean) =>
    access.projectOrThrow(viewer, orgSlug, projectSlug, write ? "project.write" : "project.read");

  const readSettings = (projectId: number) => readProjectSettings(db.kysely, projectId);

  async function issueOf(viewer: Viewer, orgSlug: string, issueId: number, action: "event.read" | "issue.update") {
    // The role first: a refused role learns nothing about which issues exist.
    requirePermission(viewer, await access.membershipOrThrow(viewer, orgSlug), action);
    return access.issueInOrg(viewer, orgSlug, issueId);
  }

  const canManage = (org: OrgSummary) => permits(org.role, { kind: "session" }, "project.write");

  return {
    async settings(viewer, orgSlug, projectSlug) {
      const { org, project: p } = await project(viewer, orgSlug, projectSlug, false);
      return { canManage: canManage(org), settings: storedSettings(await readSettings(p.id)) };
    },

    async saveSettings(viewer, orgSlug, projectSlug, input) {
      const { project: p } = await project(viewer, orgSlug, projectSlug, true);
      const settings = parseTrackerSettings(input);
      await writeTx(db, async (tx) => {
        const all = await readProjectSettings(tx, p.id);
        await writeProjectSettings(tx, p.id, { ...all, [KEY]: settings });
      });
      return settings;
    },

    async forIssue(viewer, orgSlug, issueId) {
      const { org, issue, projects } = await issueOf(viewer, orgSlug, issueId, "event.read");
      const p = projects.get(issue.projectId);
      const settings = p ? storedSettings(await readSettings(p.id)) : NO_TRACKERS;
      const configured = Boolean(settings.github || settings.gitlab || (settings.jiraUrl && settings.jiraProjectId));
      let createLinks: CreateLink[] = [];
      if (configured && p) {
        const ref = await firstEventRef(db, issue.id);
        const stored = ref ? await getEvent(db, ref.projectId, ref.eventId) : undefined;
        createLinks = createIssueLinks(settings, {
          shortId: formatShortId(p.slug, issue.shortId),
          title: issue.title,
          culprit: issue.culprit,
          url: `${deps.publicUrl.replace(/\/$/, "")}/${encodeURIComponent(org.slug)}/issues/${issue.id}`,
          frames: topInAppFrames(stored?.event as unknown as NormalizedEvent | undefined),
        });
      }
      const link = (await issueLinks(db, [issue.id])).get(issue.id);
      return {
        createLinks,
        configured,
        canConfigure: canManage(org),
        link: link ? { url: link.url, label: linkLabel(link.url), createdAt: link.createdAt } : null,
        canLink: permits(org.role, { kind: "session" }, "issue.update"),
      };
    },

    async link(viewer, orgSlug, issueId, input) {
      const { issue } = await issueOf(viewer, orgSlug, issueId, "issue.update");
      const url = parseLinkUrl(input);
      await writeTx(db, (tx) => setIssueLink(tx, { issueId: issue.id, url, userId: viewer.userId, createdAt: now() }));
      return { url, label: linkLabel(url) };
    },

    async unlink(viewer, orgSlug, issueId) {
      const { issue } = await issueOf(viewer, orgSlug, issueId, "issue.update");
      await writeTx(db, (tx) => deleteIssueLink(tx, issue.id));
    },

    async linksOf(issueIds) {
      const links = await issueLinks(db, issueIds);
      return new Map([...links].map(([id, l]) => [id, { url: l.url, label: linkLabel(l.url) }]));
    },
  };
}
