/**
 * Uptime monitors for the UI and the REST API: list with state, last response and availability
 * (24 h, 7 d, 30 d), and create. Every member reads (tokens: `project:read`); creating needs
 * owner/admin (tokens: `project:write`).
 */
import { z } from "zod";
import { AppError } from "../core/errors";
import { availability, parseUptimeConfig, type UptimeConfig, type UptimeState } from "../core/monitors/uptime";
import { validate } from "../core/validation";
import type { Db } from "../storage/db";
import type { ProjectRow } from "../storage/projects";
import { insertUptimeMonitor, listUptimeMonitors, listUptimeResults, type UptimeResultRecord } from "../storage/uptime";
import type { OrgSummary, Viewer } from "./types";

const DAY = 86_400_000;

export interface UptimeSummary {
  id: number;
  name: string;
  projectSlug: string;
  config: UptimeConfig;
  state: UptimeState;
  issueId: number | null;
  last: UptimeResultRecord | null;
  /** 0–1, null without results in the window */
  availability: { day: number | null; week: number | null; month: number | null };
}

export interface UptimeServices {
  list(viewer: Viewer, orgSlug: string): Promise<UptimeSummary[]>;
  create(viewer: Viewer, orgSlug: string, input: unknown): Promise<UptimeSummary>;
}

const CreateSchema = z.object({ project: z.string().max(100), name: z.string().trim().min(1).max(128), config: z.unknown() });

export function createUptimeServices(deps: {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}): UptimeServices {
  const { db, now, membershipOrThrow, requireScope, projectsOf } = deps;

  async function summarize(projects: Map<number, ProjectRow>, ids: number[]): Promise<UptimeSummary[]> {
    const at = now();
    const monitors = (await listUptimeMonitors(db, ids.length ? ids : [...projects.keys()])).filter((m) => projects.has(m.projectId));
    return Promise.all(
      monitors.map(async (m) => {
        const month = await listUptimeResults(db, m.id, at - 30 * DAY, 50_000);
        return {
          id: m.id,
          name: m.name,
          projectSlug: projects.get(m.projectId)?.slug ?? "unknown",
          config: m.config,
          state: m.state,
          issueId: m.issueId,
          last: month[0] ?? null,
          availability: {
            day: availability(month.filter((r) => r.checkedAt >= at - DAY)),
            week: availability(month.filter((r) => r.checkedAt >= at - 7 * DAY)),
            month: availability(month),
          },
        };
      }),
    );
  }

  return {
    async list(viewer, orgSlug) {
      requireScope(viewer, "project:read");
      const org = await membershipOrThrow(viewer, orgSlug);
      return summarize(await projectsOf(org), []);
    },
    async create(viewer, orgSlug, raw) {
      const input = validate(CreateSchema, raw);
      requireScope(viewer, "project:write");
      const org = await membershipOrThrow(viewer, orgSlug);
      if (org.role !== "owner" && org.role !== "admin") throw new AppError("forbidden", "Only owners and admins create uptime monitors.");
      const projects = await projectsOf(org);
      const project = [...projects.values()].find((p) => p.slug === input.project);
      if (!project)
        throw new AppError("validation_failed", "project must name a project of this organization.", {
          fields: [{ field: "project", rule: "exists", message: "unknown project" }],
        });
      const cfg = parseUptimeConfig(input.config);
      if (!cfg.ok)
        throw new AppError("validation_failed", `config.${cfg.field}: ${cfg.message}`, {
          fields: [{ field: `config.${cfg.field}`, rule: "format", message: cfg.message }],
        });
      const m = await insertUptimeMonitor(db, { projectId: project.id, name: input.name, config: cfg.value }, now());
      const [s] = (await summarize(projects, [project.id])).filter((x) => x.id === m.id);
      return s;
    },
  };
}
