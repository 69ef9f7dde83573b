/**
 * Project administration: creating projects, their DSN keys (create, label, disable, rotate) and
 * their settings (retention, scrubbing, grouping version, rate limit). Anyone in the organization
 * may read keys and settings (the DSN is not a secret: it ships in browser bundles); only admins
 * and owners change them (SPEC §6), and API tokens need `project:read` / `project:write`.
 * Every key change drops the ingest's cached lookups so it takes effect on the next request.
 */
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import type { Config } from "../../config";
import { formatDsn } from "../../core/dsn";
import { AppError } from "../../core/errors";
import type { NormalizedEvent } from "../../core/event";
import {
  compileGroupingRules,
  DEFAULT_GROUPING_TRANSITION_DAYS,
  GROUPING_CONFIG_NAMES,
  GROUPING_VERSIONS,
  groupingRuleTexts,
  groupingVersionNamed,
  parseFingerprintRules,
  parseStackRules,
  type RuleError,
} from "../../core/grouping/index";
import { type GroupingPreview, previewGrouping } from "../../core/grouping/preview";
import { readScrubSettings, type ScrubSettings } from "../../core/scrub/scrub-event";
import { nameSchema, slugify, slugSchema, validate } from "../../core/validation";
import type { BlobStore } from "../../storage/blobs/blob-store";
import type { Db } from "../../storage/db";
import { isUniqueViolation, type Tx, writeTx } from "../../storage/dialect";
import { listRecentProjectEvents } from "../../storage/events/events";
import { addToDefaultTeam, listTeams, setTeamProject } from "../../storage/members/teams";
import { invalidate } from "../../storage/orgs/key-cache";
import { deleteProjectAndData } from "../../storage/orgs/project-delete";
import { readProjectProcessing, switchGroupingVersion } from "../../storage/orgs/project-processing";
import {
  findKey,
  findProjectBySlug,
  insertKey,
  insertProject,
  type KeyRow,
  listKeys,
  type ProjectRow,
  readProjectSettings,
  updateKey,
  updateProjectIdentity,
  writeProjectSettings,
} from "../../storage/orgs/projects";
import { projectReplayPrefix } from "../../storage/replays/replays";
import type { Access } from "../access/access";
import { permits } from "../access/permissions";
import { projectIdentityPatch } from "../sentry-api/project-update-body";
import type { OrgSummary, ProjectSummary, Role, Viewer } from "../types";

export interface ProjectKeyView {
  id: number;
  label: string;
  publicKey: string;
  dsn: string;
  active: boolean;
  createdAt: number;
  /** Sentry's deprecated secret half, kept only for keys imported from a DSN that had one */
  secretKey: string | null;
  /** the installation's per-key limit, which binds every key (Sentry's key `rateLimit`); null: unlimited */
  rateLimit: { window: number; count: number } | null;
}

export interface ProjectSettingsView {
  project: ProjectSummary & { createdAt: number };
  /** the viewer's role in the organization */
  role: Role;
  /** may the viewer change keys and settings (admins and owners) */
  canManage: boolean;
  retention: {
    /** the project's own values; null: the installation default applies */
    days: number | null;
    eventCap: number | null;
    defaultDays: number;
    defaultEventCap: number;
  };
  scrubbing: ScrubSettings;
  grouping: {
    version: string;
    /** the version before the last switch, still matched during the transition */
    previous: string | null;
    switchedAt: number | null;
    versions: string[];
    transitionDays: number;
    /** Sentry's "Fingerprint Rules" text (`fingerprintingRules`), "" when none */
    fingerprintingRules: string;
    /** Sentry's "Stack Trace Rules" text (`groupingEnhancements`), "" when none */
    groupingEnhancements: string;
    /** whether the version applies stack-trace rules (v3+) */
    stackRulesApply: boolean;
  };
  rateLimit: {
    /** the project's own limit; null: none */
    eventsPerMinute: number | null;
    /** what the installation enforces for every key and project (0 = unlimited) */
    installation: { keyEvents: number; projectEvents: number; windowSeconds: number };
  };
  /** session replay storage and the installation's replay retention */
  replays: { enabled: boolean; retentionDays: number };
}

/** A settings change: only the fields present change; null resets to the default. */
export interface SettingsPatch {
  retentionDays?: number | null;
  eventCap?: number | null;
  scrubbing?: Partial<ScrubSettings>;
  groupingVersion?: string;
  rateLimit?: { eventsPerMinute: number | null } | null;
  /** session replay storage (on by default); off drops the project's replays at ingest */
  replays?: { enabled: boolean };
  /** Sentry's rule texts; "" or null removes them */
  fingerprintingRules?: string | null;
  groupingEnhancements?: string | null;
}

export interface ProjectAdminServices {
  /** Creates a project with a first DSN key labelled "Default" (admins and owners). */
  /**
   * A new project with its default key. `teams` (team slugs) are the teams it joins; without it,
   * the org's default team. An org with teams needs at least one (else only admins would see it).
   */
  create(viewer: Viewer, orgSlug: string, input: { name: string; platform: string; teams?: string[] }): Promise<ProjectSummary>;
  /** Sentry's `POST /teams/{org}/{team}/projects/`: an unknown team is not_found before anything is written. */
  createInTeam(viewer: Viewer, orgSlug: string, teamSlug: string, input: { name: string; platform: string }): Promise<ProjectSummary>;
  settings(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectSettingsView>;
  /** Validates (zod, `validation_failed` with fields) and stores a settings change. */
  updateSettings(viewer: Viewer, orgSlug: string, projectSlug: string, patch: unknown): Promise<ProjectSettingsView>;
  /**
   * Sentry's `PUT /api/0/projects/{org}/{project}/` body: the grouping rules, then name, slug and
   * platform; everything else Sentry accepts there is ignored. Authorizes (`project.write`) even
   * when the body changes nothing. Answers the project's slug as it is now.
   */
  updateFromSentry(viewer: Viewer, orgSlug: string, projectSlug: string, body: unknown): Promise<string>;
  /** Sentry's project deletion: the project, its keys (the DSN stops accepting) and all its data. */
  remove(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<void>;
  /** Name, slug and platform (admins and owners; a taken slug is a conflict). Answers the project as it is now. */
  rename(
    viewer: Viewer,
    orgSlug: string,
    projectSlug: string,
    patch: { name?: string; slug?: string; platform?: string },
  ): Promise<ProjectSummary>;
  /** Sentry's project grouping fields (`GET /api/0/projects/{org}/{project}/`). */
  groupingRules(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<SentryGroupingFields>;
  /**
   * Sentry's `PUT /api/0/projects/{org}/{project}/` for the grouping fields: `fingerprintingRules`
   * and `groupingEnhancements` (strings; "" or null removes), validated per line.
   */
  updateGroupingRules(viewer: Viewer, orgSlug: string, projectSlug: string, body: unknown): Promise<SentryGroupingFields>;
  /**
   * Regroups the project's last 1,000 events with draft rules (not saved): how many issues they
   * would make, and which current issues would merge or split. Bad lines: `validation_failed`.
   */
  previewGrouping(
    viewer: Viewer,
    orgSlug: string,
    projectSlug: string,
    draft: { fingerprintingRules: string; groupingEnhancements: string },
  ): Promise<GroupingPreview>;
}

export interface SentryGroupingFields {
  fingerprintingRules: string;
  groupingEnhancements: string;
  /** Errata's grouping version, where Sentry names its grouping config */
  groupingConfig: string;
}

export interface KeyServices {
  /** The project's keys, oldest first (every member may read them). */
  list(viewer: Viewer, orgSlug: string, projectSlug: string): Promise<ProjectKeyView[]>;
  create(viewer: Viewer, orgSlug: string, projectSlug: string, input: { label: string }): Promise<ProjectKeyView>;
  update(
    viewer: Viewer,
    orgSlug: string,
    projectSlug: string,
    keyId: number,
    patch: { label?: string; active?: boolean },
  ): Promise<ProjectKeyView>;
  /**
   * Replaces a key: a new key with the same label is created and the old one disabled (kept, so
   * its outcome counters stay readable and it can be re-enabled in an emergency).
   */
  rotate(viewer: Viewer, orgSlug: string, projectSlug: string, keyId: number): Promise<{ key: ProjectKeyView; retired: ProjectKeyView }>;
}

export const PLATFORM_RULE = /^[a-z0-9][a-z0-9-]{0,63}$/;

const labelSchema = z.string().trim().min(1, "required").max(64, "use at most 64 characters");
const platformSchema = z.string().trim().toLowerCase().regex(PLATFORM_RULE, "a platform id such as javascript-nextjs, node or python");
const keyListSchema = z
  .array(z.string().trim().min(1).max(100, "use at most 100 characters per key"))
  .max(100, "at most 100 keys")
  .transform((l) => [...new Set(l)]);

/** How many of a project's latest events the grouping preview regroups. */
export const PREVIEW_EVENTS = 1000;

const sha256Hex = (s: string) => createHash("sha256").update(s).digest("hex");

/** Rule texts are parsed for every event batch of the project: keep them to a page or two. */
export const RULES_MAX_CHARS = 32_000;

/** Refuses rule texts with any bad line: one field error per line, `line N: …`. */
export function checkGroupingRules(v: { fingerprintingRules?: string | null; groupingEnhancements?: string | null }): void {
  const fields: Array<{ field: string; rule: string; message: string }> = [];
  const add = (field: string, errors: RuleError[]) => {
    for (const e of errors) fields.push({ field, rule: "syntax", message: `line ${e.line}: ${e.message}` });
  };
  if (v.fingerprintingRules) add("fingerprintingRules", parseFingerprintRules(v.fingerprintingRules).errors);
  if (v.groupingEnhancements) add("groupingEnhancements", parseStackRules(v.groupingEnhancements).errors);
  if (fields.length > 0) throw new AppError("validation_failed", "Some grouping rules do not parse.", { fields });
}

const patchSchema = z
  .object({
    retentionDays: z.number().int("a whole number of days").min(1, "at least 1 day").max(3650, "at most 3650 days").nullable().optional(),
    eventCap: z
      .number()
      .int("a whole number")
      .min(100, "at least 100 events")
      .max(1_000_000_000, "at most 1,000,000,000 events")
      .nullable()
      .optional(),
    scrubbing: z
      .object({
        enabled: z.boolean().optional(),
        scrubIp: z.boolean().optional(),
        extraKeys: keyListSchema.optional(),
        safeKeys: keyListSchema.optional(),
      })
      .strict()
      .optional(),
    groupingVersion: z
      .string()
      .refine((v) => v in GROUPING_VERSIONS, `one of ${Object.keys(GROUPING_VERSIONS).join(", ")}`)
      .optional(),
    fingerprintingRules: z.string().max(RULES_MAX_CHARS, `at most ${RULES_MAX_CHARS} characters`).nullable().optional(),
    groupingEnhancements: z.string().max(RULES_MAX_CHARS, `at most ${RULES_MAX_CHARS} characters`).nullable().optional(),
    rateLimit: z
      .object({
        eventsPerMinute: z
          .number()
          .int("a whole number")
          .min(1, "at least 1 event per minute")
          .max(10_000_000, "at most 10,000,000")
          .nullable(),
      })
      .strict()
      .nullable()
      .optional(),
    replays: z.object({ enabled: z.boolean() }).strict().optional(),
  })
  .strict();

export interface ProjectAdminDeps {
  db: Db;
  config: Pick<Config, "publicIngestUrl" | "retention" | "rateLimits" | "smtp" | "replays">;
  now: () => number;
  authorize: Access["authorize"];
  projectOrThrow: Access["projectOrThrow"];
  requireScope(viewer: Viewer, scope: string): void;
  projectSummary(p: ProjectRow): Promise<ProjectSummary>;
  /** Where replay segments are kept: their files go with the project (PostgreSQL rows go in its transaction). */
  blobs?: BlobStore;
}

/** The ids of the named teams of the org; an unknown one, or none in an org that has teams, is refused by field. */
async function chosenTeams(tx: Tx, orgId: number, slugs: string[]): Promise<number[]> {
  const teams = await listTeams(tx, orgId);
  const refuse = (message: string) => new AppError("validation_failed", message, { fields: [{ field: "teams", rule: "format", message }] });
  if (teams.length > 0 && slugs.length === 0) throw refuse("choose at least one team (members see a project through its teams)");
  return [...new Set(slugs)].map((slug) => {
    const t = teams.find((x) => x.slug === slug);
    if (!t) throw refuse(`no team "${slug}" in this organization`);
    return t.id;
  });
}

export function createProjectAdmin(deps: ProjectAdminDeps): { projects: ProjectAdminServices; keys: KeyServices } {
  // Who may do what to which project is access.ts's one answer (permission first, then visibility).
  const { db, config, now, authorize, projectOrThrow } = deps;
  /** Without SMTP the default alert rule does not e-mail (every delivery would fail). */
  const emailAlerts = config.smtp !== null;

  const canManage = (org: OrgSummary) => permits(org.role, { kind: "session" }, "project.write");

  const keyView = (p: ProjectRow, k: KeyRow): ProjectKeyView => ({
    id: k.id,
    label: k.label,
    publicKey: k.publicKey,
    dsn: formatDsn(config.publicIngestUrl, k.publicKey, k.dsnProjectId ?? p.id),
    active: k.active,
    createdAt: k.createdAt,
    secretKey: k.secretKey,
    rateLimit: config.rateLimits.keyEvents > 0 ? { window: config.rateLimits.windowSeconds, count: config.rateLimits.keyEvents } : null,
  });

  async function keyOrThrow(p: ProjectRow, keyId: number): Promise<KeyRow> {
    const k = Number.isSafeInteger(keyId) ? await findKey(db, p.id, keyId) : undefined;
    if (!k) throw new AppError("not_found", "Key not found.");
    return k;
  }

  const newPublicKey = () => randomBytes(16).toString("hex");

  async function settingsView(org: OrgSummary, p: ProjectRow): Promise<ProjectSettingsView> {
    const processing = (await readProjectProcessing(db, [p.id])).get(p.id);
    const s = processing?.settings ?? {};
    const positive = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : null);
    const rl = s.rateLimit as { eventsPerMinute?: unknown } | undefined;
    return {
      project: { ...(await deps.projectSummary(p)), createdAt: p.createdAt },
      role: org.role,
      canManage: canManage(org),
      retention: {
        days: positive(s.retentionDays),
        eventCap: positive(s.eventCap),
        defaultDays: config.retention.days,
        defaultEventCap: config.retention.eventCap,
      },
      scrubbing: readScrubSettings(s),
      grouping: {
        version: processing?.groupingVersion ?? p.groupingVersion,
        previous: processing?.groupingPrevious ?? null,
        switchedAt: processing?.groupingSwitchedAt ?? null,
        versions: Object.keys(GROUPING_VERSIONS),
        transitionDays: DEFAULT_GROUPING_TRANSITION_DAYS,
        ...groupingRuleTexts(s),
        stackRulesApply: GROUPING_VERSIONS[processing?.groupingVersion ?? p.groupingVersion]?.stackRules === true,
      },
      rateLimit: {
        eventsPerMinute: positive(rl && typeof rl === "object" ? rl.eventsPerMinute : undefined),
        installation: { ...config.rateLimits },
      },
      replays: {
        enabled: (s.replays as { enabled?: unknown } | undefined)?.enabled !== false,
        retentionDays: config.replays.retentionDays,
      },
    };
  }

  const grouping = (v: ProjectSettingsView): SentryGroupingFields => ({
    fingerprintingRules: v.grouping.fingerprintingRules,
    groupingEnhancements: v.grouping.groupingEnhancements,
    groupingConfig: v.grouping.version,
  });
  const groupingBody = z
    .object({
      fingerprintingRules: z.string().nullable().optional(),
      groupingEnhancements: z.string().nullable().optional(),
      // Errata's version names or Sentry's config names; anything else is refused by name.
      groupingConfig: z
        .string()
        .refine((c) => groupingVersionNamed(c) !== undefined, `one of ${GROUPING_CONFIG_NAMES.join(", ")}`)
        .optional(),
    })
    .passthrough();

  const projects: ProjectAdminServices = {
    async create(viewer, orgSlug, input) {
      const org = await authorize(viewer, orgSlug, "project.write");
      const v = validate(
        z.object({ name: nameSchema, platform: platformSchema, teams: z.array(z.string().max(100)).max(50).optional() }),
        input,
      );
      const slug = slugify(v.name);
      const taken = () =>
        new AppError("conflict", `A project "${slug}" already exists.`, {
          fields: [{ field: "name", rule: "unique", message: `a project with the slug "${slug}" already exists` }],
        });
      if (await findProjectBySlug(db, org.id, slug)) throw taken();
      const project = await writeTx(db, async (tx) => {
        const p = await insertProject(tx, { orgId: org.id, slug, name: v.name, platform: v.platform, now: now(), emailAlerts });
        await insertKey(tx, { projectId: p.id, publicKey: newPublicKey(), label: "Default", now: now() });
        // The chosen teams; else the org's default team (its first), when it has teams.
        if (v.teams === undefined) await addToDefaultTeam(tx, org.id, { projectId: p.id });
        else for (const teamId of await chosenTeams(tx, org.id, v.teams)) await setTeamProject(tx, teamId, p.id, true);
        return p;
      }).catch((err: unknown) => {
        // Two admins creating the same project at once: the unique constraint decides.
        throw isUniqueViolation(err) ? taken() : err;
      });
      // The ingest may have cached "no such project" for this id (an SDK that raced the UI).
      invalidate();
      return deps.projectSummary(project);
    },

    async createInTeam(viewer, orgSlug, teamSlug, input) {
      // Authorized before the lookup, so a refused caller learns nothing about the org's teams.
      const org = await authorize(viewer, orgSlug, "project.write");
      if (!(await listTeams(db, org.id)).some((t) => t.slug === teamSlug)) throw new AppError("not_found", "Team not found.");
      return projects.create(viewer, orgSlug, { ...input, teams: [teamSlug] });
    },

    async updateFromSentry(viewer, orgSlug, projectSlug, body) {
      const b = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
      const grouping = b.fingerprintingRules !== undefined || b.groupingEnhancements !== undefined || b.groupingConfig !== undefined;
      if (grouping) await projects.updateGroupingRules(viewer, orgSlug, projectSlug, body);
      const identity = projectIdentityPatch(body);
      if (Object.keys(identity).length === 0 && grouping) return projectSlug;
      return (await projects.rename(viewer, orgSlug, projectSlug, identity as Record<string, string>)).slug;
    },

    async remove(viewer, orgSlug, projectSlug) {
      const { project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.write");
      await writeTx(db, (tx) => deleteProjectAndData(tx, project.id));
      // The ingest's cached key answers would accept events for a few more seconds.
      invalidate();
      if (deps.blobs?.kind === "files") await deps.blobs.deletePrefix(projectReplayPrefix(project.id));
    },

    async rename(viewer, orgSlug, projectSlug, patch) {
      const { org, project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.write");
      const v = validate(
        z.object({ name: nameSchema.optional(), slug: slugSchema.optional(), platform: platformSchema.optional() }).strict(),
        patch,
      );
      const taken = () =>
        new AppError("conflict", `A project "${v.slug}" already exists.`, {
          fields: [{ field: "slug", rule: "unique", message: `a project with the slug "${v.slug}" already exists` }],
        });
      if (v.slug !== undefined && v.slug !== project.slug && (await findProjectBySlug(db, org.id, v.slug))) throw taken();
      await writeTx(db, (tx) => updateProjectIdentity(tx, project.id, v)).catch((err: unknown) => {
        throw isUniqueViolation(err) ? taken() : err;
      });
      invalidate();
      const fresh = await findProjectBySlug(db, org.id, v.slug ?? project.slug);
      return deps.projectSummary(fresh ?? project);
    },

    async settings(viewer, orgSlug, projectSlug) {
      const { org, project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.read");
      return settingsView(org, project);
    },

    async updateSettings(viewer, orgSlug, projectSlug, patch) {
      const { org, project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.write");
      const v = validate(patchSchema, patch);
      checkGroupingRules(v);
      await writeTx(db, async (tx) => {
        const current = await readProjectSettings(tx, project.id);
        const next: Record<string, unknown> = { ...current };
        const setOrReset = (key: string, value: unknown) => {
          if (value === null) delete next[key];
          else if (value !== undefined) next[key] = value;
        };
        setOrReset("retentionDays", v.retentionDays);
        setOrReset("eventCap", v.eventCap);
        // "" and null both remove the rules; trailing blank lines are not kept.
        const ruleText = (t: string | null | undefined) => (t === undefined ? undefined : (t ?? "").trimEnd() || null);
        setOrReset("fingerprintingRules", ruleText(v.fingerprintingRules));
        setOrReset("groupingEnhancements", ruleText(v.groupingEnhancements));
        if (v.scrubbing) next.scrubbing = { ...readScrubSettings(current), ...v.scrubbing };
        if (v.rateLimit !== undefined)
          setOrReset("rateLimit", v.rateLimit === null || v.rateLimit.eventsPerMinute === null ? null : v.rateLimit);
        // On is the default: only "off" is written down.
        if (v.replays !== undefined) setOrReset("replays", v.replays.enabled ? null : { enabled: false });
        await writeProjectSettings(tx, project.id, next);
        if (v.groupingVersion !== undefined) await switchGroupingVersion(tx, project.id, v.groupingVersion, now());
      });
      // Ingest caches keys with their project's rate limit and replay setting: make a change apply at once.
      if (v.rateLimit !== undefined || v.replays !== undefined) invalidate();
      const fresh = (await findProjectBySlug(db, org.id, project.slug)) ?? project;
      return settingsView(org, fresh);
    },

    async groupingRules(viewer, orgSlug, projectSlug) {
      return grouping(await projects.settings(viewer, orgSlug, projectSlug));
    },

    async previewGrouping(viewer, orgSlug, projectSlug, draft) {
      // Part of editing the rules: those who may change them (a viewer's replay must not run it).
      const { project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.write");
      const v = validate(
        z.object({ fingerprintingRules: z.string().max(RULES_MAX_CHARS), groupingEnhancements: z.string().max(RULES_MAX_CHARS) }),
        draft,
      );
      checkGroupingRules(v);
      const processing = (await readProjectProcessing(db, [project.id])).get(project.id);
      const version = processing?.groupingVersion ?? project.groupingVersion;
      const stored = await listRecentProjectEvents(db, project.id, PREVIEW_EVENTS);
      const inputs = stored.map((e) => ({ issueId: e.issueId, event: e.event as unknown as NormalizedEvent }));
      return previewGrouping(inputs, version, compileGroupingRules(v.fingerprintingRules, v.groupingEnhancements), sha256Hex);
    },

    async updateGroupingRules(viewer, orgSlug, projectSlug, body) {
      // Other fields of Sentry's project PUT (name, slug, platform …) are not this method's.
      const b = validate(groupingBody, body);
      const patch: SettingsPatch = {};
      if (b.fingerprintingRules !== undefined) patch.fingerprintingRules = b.fingerprintingRules;
      if (b.groupingEnhancements !== undefined) patch.groupingEnhancements = b.groupingEnhancements;
      if (b.groupingConfig !== undefined) patch.groupingVersion = groupingVersionNamed(b.groupingConfig);
      return grouping(await projects.updateSettings(viewer, orgSlug, projectSlug, patch));
    },
  };

  const keys: KeyServices = {
    async list(viewer, orgSlug, projectSlug) {
      const { project } = await projectOrThrow(viewer, orgSlug, projectSlug, "project.read");
      return (await listKeys(db, project.id)).map((k) => keyView(project, k));
    },

    async create(viewer, orgSlug, projectSlug, input) {
      const { project } = await projectOrThrow(viewer, orgSlug, projectSlug, "key.write");
      const { label } = validate(z.object({ label: labelSchema }), input);
      const k = await writeTx(db, (tx) => insertKey(tx, { projectId: project.id, publicKey: newPublicKey(), label, now: now() }));
      invalidate(k.publicKey);
      return keyView(project, k);
    },

    async update(viewer, orgSlug, projectSlug, keyId, patch) {
      const { project } = await projectOrThrow(viewer, orgSlug, projectSlug, "key.write");
      const v = validate(z.object({ label: labelSchema.optional(), active: z.boolean().optional() }).strict(), patch);
      await keyOrThrow(project, keyId);
      const k = await writeTx(db, (tx) => updateKey(tx, project.id, keyId, v));
      if (!k) throw new AppError("not_found", "Key not found.");
      invalidate(k.publicKey);
      return keyView(project, k);
    },

    async rotate(viewer, orgSlug, projectSlug, keyId) {
      const { project } = await projectOrThrow(viewer, orgSlug, projectSlug, "key.write");
      const old = await keyOrThrow(project, keyId);
      const { key, retired } = await writeTx(db, async (tx) => {
        const created = await insertKey(tx, { projectId: project.id, publicKey: newPublicKey(), label: old.label, now: now() });
        const disabled = await updateKey(tx, project.id, old.id, { active: false });
        return { key: created, retired: disabled ?? { ...old, active: false } };
      });
      invalidate(old.publicKey);
      invalidate(key.publicKey);
      return { key: keyView(project, key), retired: keyView(project, retired) };
    },
  };

  return { projects, keys };
}
