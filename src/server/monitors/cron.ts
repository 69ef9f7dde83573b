/**
 * Cron monitors for the UI and the REST API: list with state per environment and a strip of recent
 * check-ins, detail with the check-in list, create and update (schedule, thresholds, mute, pause).
 * Every member reads (tokens: `project:read`); changes need owner/admin (tokens: `project:write`).
 */
import { z } from "zod";
import { AppError } from "../../core/errors";
import { type MonitorConfig, parseMonitorConfig, slugify } from "../../core/monitors/checkin";
import { expectationAfter } from "../../core/monitors/schedule";
import { validate } from "../../core/validation";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import {
  type CheckInRecord,
  findMonitor,
  insertMonitor,
  listCheckIns,
  listEnvironments,
  listMonitors,
  type MonitorEnvRecord,
  type MonitorRecord,
  recentCheckIns,
  resetExpectations,
  updateMonitor,
} from "../../storage/monitors/monitors";
import type { ProjectRow } from "../../storage/orgs/projects";
import { requirePermission } from "../access/access";
import type { Action } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";

export interface MonitorEnvironment {
  name: string;
  status: string;
  lastCheckIn: number | null;
  nextCheckIn: number | null;
  nextCheckInLatest: number | null;
  issueId: number | null;
}

export interface MonitorCheckIn {
  id: number;
  checkInId: string;
  environment: string;
  status: string;
  durationMs: number | null;
  release: string | null;
  expectedAt: number | null;
  createdAt: number;
}

export interface MonitorSummary {
  id: number;
  slug: string;
  name: string;
  projectSlug: string;
  status: "active" | "paused";
  muted: boolean;
  config: MonitorConfig;
  createdAt: number;
  environments: MonitorEnvironment[];
  /** newest first */
  recent: MonitorCheckIn[];
}

export interface MonitorInput {
  project?: string;
  name?: string;
  slug?: string;
  config?: unknown;
  status?: string;
  isMuted?: boolean;
}

const InputSchema = z.object({
  project: z.string().max(100).optional(),
  name: z.string().max(128).optional(),
  slug: z.string().max(100).optional(),
  config: z.unknown().optional(),
  status: z.string().max(20).optional(),
  isMuted: z.boolean().optional(),
});

export interface MonitorServices {
  list(viewer: Viewer, orgSlug: string, q?: { project?: string; recent?: number }): Promise<MonitorSummary[]>;
  get(viewer: Viewer, orgSlug: string, slug: string): Promise<MonitorSummary>;
  checkIns(viewer: Viewer, orgSlug: string, slug: string, q?: { limit?: number }): Promise<MonitorCheckIn[]>;
  create(viewer: Viewer, orgSlug: string, input: MonitorInput): Promise<MonitorSummary>;
  update(viewer: Viewer, orgSlug: string, slug: string, input: MonitorInput): Promise<MonitorSummary>;
}

export interface MonitorServiceDeps {
  db: Db;
  now: () => number;
  membershipOrThrow(viewer: Viewer, orgSlug: string): Promise<OrgSummary>;
  requireScope(viewer: Viewer, scope: string): void;
  projectsOf(org: OrgSummary): Promise<Map<number, ProjectRow>>;
}

const toEnv = (e: MonitorEnvRecord): MonitorEnvironment => ({
  name: e.environment,
  status: e.status,
  lastCheckIn: e.lastCheckinAt,
  nextCheckIn: e.nextCheckinAt,
  nextCheckInLatest: e.nextCheckinLatest,
  issueId: e.issueId,
});

const toCheckIn = (c: CheckInRecord): MonitorCheckIn => ({
  id: c.id,
  checkInId: c.checkInId,
  environment: c.environment,
  status: c.status,
  durationMs: c.durationMs,
  release: c.release,
  expectedAt: c.expectedAt,
  createdAt: c.createdAt,
});

function invalid(field: string, message: string): AppError {
  return new AppError("validation_failed", message, { fields: [{ field, rule: "format", message }] });
}

export function createMonitorServices(deps: MonitorServiceDeps): MonitorServices {
  const { db, now, membershipOrThrow, projectsOf } = deps;

  async function summaries(monitors: MonitorRecord[], projects: Map<number, ProjectRow>, recent: number): Promise<MonitorSummary[]> {
    const ids = monitors.map((m) => m.id);
    const envs = await listEnvironments(db, ids);
    const strips = await recentCheckIns(db, ids, recent);
    return monitors.map((m) => ({
      id: m.id,
      slug: m.slug,
      name: m.name,
      projectSlug: projects.get(m.projectId)?.slug ?? "unknown",
      status: m.status,
      muted: m.muted,
      config: m.config,
      createdAt: m.createdAt,
      environments: envs.filter((e) => e.monitorId === m.id).map(toEnv),
      recent: (strips.get(m.id) ?? []).map(toCheckIn),
    }));
  }

  async function find(viewer: Viewer, orgSlug: string, slug: string, action: Action) {
    const org = await membershipOrThrow(viewer, orgSlug);
    requirePermission(viewer, org, action);
    const projects = await projectsOf(org);
    const monitor = (await listMonitors(db, [...projects.keys()])).find((m) => m.slug === slug);
    if (!monitor) throw new AppError("not_found", "Monitor not found.");
    return { org, projects, monitor };
  }

  function configOf(v: unknown): MonitorConfig {
    const c = parseMonitorConfig(v);
    if (!c.ok) throw invalid("config", `Invalid monitor config (${c.reason}).`);
    return c.value;
  }

  function statusOf(v: string | undefined): "active" | "paused" | undefined {
    if (v === undefined) return undefined;
    // Sentry calls a paused monitor "disabled".
    if (v === "active") return "active";
    if (v === "paused" || v === "disabled") return "paused";
    throw invalid("status", "status must be active or disabled.");
  }

  return {
    async list(viewer, orgSlug, q = {}) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "project.read");
      const projects = await projectsOf(org);
      let ids = [...projects.keys()];
      if (q.project) {
        const p = [...projects.values()].find((x) => x.slug === q.project);
        if (!p) throw new AppError("not_found", "Project not found.");
        ids = [p.id];
      }
      return summaries(await listMonitors(db, ids), projects, Math.max(1, Math.min(q.recent ?? 30, 100)));
    },

    async get(viewer, orgSlug, slug) {
      const { projects, monitor } = await find(viewer, orgSlug, slug, "project.read");
      const [s] = await summaries([monitor], projects, 60);
      return s;
    },

    async checkIns(viewer, orgSlug, slug, q = {}) {
      const { monitor } = await find(viewer, orgSlug, slug, "project.read");
      return (await listCheckIns(db, monitor.id, { limit: Math.max(1, Math.min(q.limit ?? 100, 1000)) })).map(toCheckIn);
    },

    async create(viewer, orgSlug, raw) {
      const org = await membershipOrThrow(viewer, orgSlug);
      requirePermission(viewer, org, "monitor.write");
      const input = validate(InputSchema, raw);
      const projects = await projectsOf(org);
      const project = [...projects.values()].find((p) => p.slug === input.project);
      if (!project) throw invalid("project", "project must name a project of this organization.");
      const name = (input.name ?? "").trim().slice(0, 128);
      if (!name) throw invalid("name", "name is required.");
      const slug = slugify(input.slug ?? name);
      if (!slug) throw invalid("slug", "slug must contain letters or digits.");
      const config = configOf(input.config);
      if (await findMonitor(db, project.id, slug)) throw new AppError("conflict", "A monitor with this slug exists already.");
      const status = statusOf(input.status) ?? "active";
      const m = await writeTx(db, (tx) => insertMonitor(tx, { projectId: project.id, slug, name, config, status }, now()));
      if (input.isMuted) await updateMonitor(db, m.id, { muted: true }, now());
      return (await summaries([{ ...m, muted: input.isMuted === true }], projects, 30))[0];
    },

    async update(viewer, orgSlug, slug, raw) {
      const { projects, monitor } = await find(viewer, orgSlug, slug, "monitor.write");
      const input = validate(InputSchema, raw);
      const config = input.config === undefined ? undefined : configOf(input.config);
      const status = statusOf(input.status);
      const name = input.name === undefined ? undefined : input.name.trim().slice(0, 128);
      if (name === "") throw invalid("name", "name must not be empty.");
      const at = now();
      await writeTx(db, async (tx) => {
        await updateMonitor(tx, monitor.id, { name, config, status, muted: input.isMuted }, at);
        // Resuming (or rescheduling) starts the schedule afresh: no misses for the paused time.
        if ((status === "active" && monitor.status === "paused") || config) {
          const next = expectationAfter(config ?? monitor.config, at);
          await resetExpectations(tx, monitor.id, next.nextCheckIn, next.nextCheckInLatest);
        }
      });
      const updated = {
        ...monitor,
        name: name ?? monitor.name,
        config: config ?? monitor.config,
        status: status ?? monitor.status,
        muted: input.isMuted ?? monitor.muted,
      };
      return (await summaries([updated], projects, 60))[0];
    },
  };
}
