/**
 * Uptime monitors for the UI and the REST API: list with state, last response and availability
 * (24 h, 7 d, 30 d), one monitor with its response times and recent results, and create. Every
 * member reads the monitors of the projects they see (tokens: `project:read`); creating needs
 * owner/admin (tokens: `project:write`).
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import {
  availability,
  type LatencySlot,
  latencySlots,
  parseUptimeConfig,
  type UptimeConfigView,
  type UptimeState,
  uptimeConfigView,
} from "../../core/monitors/uptime";
import { validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import {
  getUptimeMonitor,
  insertUptimeMonitor,
  listUptimeMonitors,
  listUptimeResults,
  type UptimeMonitorRecord,
  type UptimeResultRecord,
} from "../../storage/monitors/uptime";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import type { OrgSummary, Viewer } from "../types";

const DAY = 86_400_000;

export interface UptimeSummary {
  id: number;
  name: string;
  projectSlug: string;
  config: UptimeConfigView;
  state: UptimeState;
  issueId: number | null;
  last: UptimeResultRecord | null;
  /** 0–1, null without results in the window */
  availability: { day: number | null; week: number | null; month: number | null };
}

export interface UptimeDetail extends UptimeSummary {
  paused: boolean;
  createdAt: number;
  /** response times of the last 24 h in at most 120 slots, oldest first */
  latency: LatencySlot[];
  /** the most recent results, newest first */
  recent: UptimeResultRecord[];
}

export interface UptimeServices {
  list(viewer: Viewer, orgSlug: string): Promise<UptimeSummary[]>;
  /** One monitor; `not_found` unless it is in a project of this org the viewer sees. */
  get(viewer: Viewer, orgSlug: string, id: number): Promise<UptimeDetail>;
  create(viewer: Viewer, orgSlug: string, input: unknown): Promise<UptimeSummary>;
}

const CreateSchema = z.object({
  project: z.string().max(100),
  name: z.string().trim().min(1, "required").max(128, "use at most 128 characters"),
  config: z.unknown(),
});
const RECENT = 50;

export function createUptimeServices(deps: {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}): UptimeServices {
  const { db, now, membershipOrThrow, projectsOf } = deps;

  /** A monitor with its availability; `month` is its last 30 days of results, newest first. */
  function summary(
    m: UptimeMonitorRecord,
    projects: Map<number, ProjectRow>,
    month: UptimeResultRecord[],
    at: number,
    revealHeaders: boolean,
  ): UptimeSummary {
    return {
      id: m.id,
      name: m.name,
      projectSlug: projects.get(m.projectId)?.slug ?? "unknown",
      // Request headers often carry credentials (Authorization, API keys): their values are for
      // the owners and admins who manage checks, not every member or viewer.
      config: uptimeConfigView(
        revealHeaders
          ? m.config
          : { ...m.config, headers: Object.fromEntries(Object.keys(m.config.headers).map((k) => [k, "[redacted]"])) },
      ),
      state: m.state,
      issueId: m.issueId,
      last: month[0] ?? null,
      availability: {
        day: availability(month.filter((r) => r.checkedAt >= at - DAY)),
        week: availability(month.filter((r) => r.checkedAt >= at - 7 * DAY)),
        month: availability(month),
      },
    };
  }

  async function summarize(projects: Map<number, ProjectRow>, ids: number[], revealHeaders: boolean): Promise<UptimeSummary[]> {
    const at = now();
    const monitors = (await listUptimeMonitors(db, ids.length ? ids : [...projects.keys()])).filter((m) => projects.has(m.projectId));
    return Promise.all(
      monitors.map(async (m) => summary(m, projects, await listUptimeResults(db, m.id, at - 30 * DAY, 50_000), at, revealHeaders)),
    );
  }
  const manages = (org: OrgSummary) => org.role === "owner" || org.role === "admin";

  return {
    async list(viewer, orgSlug) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "project.read");
      return summarize(await projectsOf(org), [], manages(org));
    },
    async get(viewer, orgSlug, id) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "project.read");
      const projects = await projectsOf(org);
      const m = Number.isSafeInteger(id) && id > 0 ? await getUptimeMonitor(db, id) : undefined;
      // Another org's monitor, or one in a project this viewer does not see: the same answer as none.
      if (!m || !projects.has(m.projectId)) throw new AppError("not_found", "Uptime monitor not found.");
      const at = now();
      const month = await listUptimeResults(db, m.id, at - 30 * DAY, 50_000);
      return {
        ...summary(m, projects, month, at, manages(org)),
        paused: m.paused,
        createdAt: m.createdAt,
        latency: latencySlots(month.filter((r) => r.checkedAt >= at - DAY)),
        recent: month.slice(0, RECENT),
      };
    },
    async create(viewer, orgSlug, raw) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "monitor.write");
      const input = validate(CreateSchema, raw);
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
      const [s] = (await summarize(projects, [project.id], true)).filter((x) => x.id === m.id);
      return s;
    },
  };
}
