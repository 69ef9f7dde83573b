/**
 * `errata import sentry` (issue 32): an organization, its teams, projects (platform, scrubbing
 * settings, team links) and DSN keys read from Sentry's REST API and written here so that SDKs keep
 * their DSN and change only the host.
 *
 * How it stays safe to run again and again:
 * - everything is read first, then checked against this installation as a whole (a project slug
 *   here with other keys, a key here in another project or organization): any conflict stops the
 *   run before it writes anything;
 * - each object (the organization, a team, a project with its settings, keys and team links) is
 *   written in its own transaction, so a run killed half-way leaves whole objects only;
 * - objects are matched by natural keys (slugs, public keys): a second run compares and updates,
 *   a killed run started again finishes what is missing. Links are added, never removed.
 * - `--dry-run` runs the very same writes in one transaction and rolls it back, so the report it
 *   prints is exactly what a real run would do.
 *
 * A DSN's project id: the imported project keeps the source's id when no project here has it;
 * otherwise its keys remember the old id (`project_keys.dsn_project_id`) and ingest accepts them on it.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError, type FieldError } from "../../core/errors";
import {
  type ImportedKey,
  type ImportProgress,
  type ImportReport,
  type ImportReportEntry,
  importedKey,
  importedMember,
  importedName,
  importedPlatform,
  importedScrubbing,
  importedSlug,
  type SentryKey,
  type SentryMember,
  type SentryProject,
  type SentryProjectDetail,
  type SentryTeam,
  sentryKeySchema,
  sentryMemberSchema,
  sentryOrgSchema,
  sentryProjectDetailSchema,
  sentryProjectSchema,
  sentryTeamSchema,
  sourceProjectId,
} from "../../core/import/sentry";
import { shortIdCeiling, sinceCutoff } from "../../core/import/sentry-issues";
import { legacyOwnersFallthrough } from "../../core/import/sentry-rules";
import { readScrubSettings, type ScrubSettings } from "../../core/scrub/scrub-event";
import type { OutboundPolicy, Resolver } from "../../net/safe-request";
import type { Db } from "../../storage/db";
import { type Tx, writeTx } from "../../storage/dialect";
import {
  findKeyByPublicKey,
  findKeyOwners,
  findOpenInvitation,
  findProjectInOrg,
  findTeamBySlug,
  insertImportedInvitation,
  insertImportedKey,
  isMemberByEmail,
  isProjectIdTaken,
  keysBySlug,
  raiseShortIdCounter,
  renameTeam,
  setInvitationRole,
  setInvitationTeams,
  teamIdsOfProject,
  updateImportedKey,
  updateProjectIdentity,
} from "../../storage/import/sentry-import";
import { insertTeam, setTeamProject } from "../../storage/members/teams";
import { invalidate } from "../../storage/orgs/key-cache";
import { findOrgBySlug, insertOrg } from "../../storage/orgs/orgs";
import { insertProject, readProjectSettings, writeProjectSettings } from "../../storage/orgs/projects";
import type { Action } from "../access/permissions";
import type { OrgSummary, Viewer } from "../types";
import { createSentryClient, type SentryClient } from "./sentry-client";
import { applyIssue, newestShortId, readIssues, type SourceIssue } from "./sentry-import-issues";
import { applyOwnership, groupingRulesPatch, readOwnership, type SentryOwnership } from "./sentry-import-project-rules";
import { applyRelease, readReleases, type SourceRelease } from "./sentry-import-releases";
import { applyRule, dropDefaultRules, emailDirectory, readProjectRules, type SourceRules } from "./sentry-import-rules";

export interface SentryImportInput {
  url: string;
  token: string;
  /** the organization's slug on the source */
  org: string;
  /** an existing organization here to import into; default: one with the source's slug (created when missing) */
  into?: string;
  dryRun?: boolean;
  /** also the issues last seen within `since` with their latest events */
  issues?: boolean;
  /** a period as Sentry writes it (`30d`, `12h`, `2w`); default 30d */
  since?: string;
  /** the latest events imported per issue (default 10) */
  eventsPerIssue?: number;
}

export interface ImportHooks {
  onProgress?: (p: ImportProgress) => void;
  /** the source asked to wait (429 with Retry-After) */
  onWait?: (seconds: number, path: string) => void;
}

export interface ImportServices {
  /** The operator CLI: acts as whoever runs the command on the server. */
  importAsOperator(input: SentryImportInput, hooks?: ImportHooks): Promise<ImportReport>;
  /** The organization settings page: owners of the `into` organization only. */
  importInto(viewer: Viewer, input: SentryImportInput & { into: string }, hooks?: ImportHooks): Promise<ImportReport>;
}

/** What the source holds, read in full before anything is written. */
interface SourceSnapshot {
  org: { slug: string; name: string };
  teams: SentryTeam[];
  /** null: the token may not read members (reported as skipped) */
  members: SentryMember[] | null;
  projects: Array<{
    project: SentryProject;
    detail: SentryProjectDetail | null;
    keys: SentryKey[];
    rules: SourceRules;
    issues: SourceIssue[];
    ownership: SentryOwnership | null;
    /** the short id of the project's newest issue there (null: not answered) */
    newestShortId: string | null;
  }>;
  /** null: the source has no release API for this token (reported as skipped) */
  releases: SourceRelease[] | null;
}

interface ProjectPlan {
  slug: string;
  name: string;
  platform: string;
  scrubbing: ScrubSettings | undefined;
  sourceId: number | null;
  teamSlugs: string[];
  keys: ImportedKey[];
  skippedKeys: ImportReportEntry[];
  rules: SourceRules;
  issues: SourceIssue[];
  ownership: SentryOwnership | null;
  /** the project's short ids there reach this number: new issues here start above it */
  shortIdCeiling: number;
  /** fingerprint and stack-trace rule texts to set (undefined: not sent) and why some were left out */
  grouping: ReturnType<typeof groupingRulesPatch>;
  /** the slug on the source (releases name their projects by it) */
  sourceSlug: string;
}

class DryRunRollback extends Error {}

const DAY = 86_400_000;

export function createImportServices(deps: {
  db: Db;
  now: () => number;
  policy: OutboundPolicy;
  authorize: (viewer: Viewer, orgSlug: string, action: Action) => Promise<OrgSummary>;
  /** how long imported invitations stay valid (INVITATION_DAYS) */
  invitationDays: number;
  /** tests: answer host names without DNS */
  resolve?: Resolver;
  sleep?: (ms: number) => Promise<void>;
  /** tests only (ERRATA_TEST_IMPORT_STALL): stop for good after writing this step, to be killed there */
  stallAfter?: string;
}): ImportServices {
  const { db, now } = deps;

  async function run(input: SentryImportInput, hooks: ImportHooks, intoRequired: boolean): Promise<ImportReport> {
    if (!input.token.trim()) throw AppError.field("token", "required", "An auth token from the Sentry server is required.");
    if (!input.org.trim()) throw AppError.field("org", "required", "The organization's slug on the Sentry server is required.");
    const since = input.since ?? "30d";
    const cutoff = sinceCutoff(since, now());
    if (input.issues && cutoff === null) {
      throw AppError.field("since", "invalid", `"${since}" is not a period: use e.g. 30d, 12h or 2w.`);
    }
    const issuesFrom = input.issues ? (cutoff as number) : null;
    const cap = Math.min(Math.max(Math.floor(input.eventsPerIssue ?? 10), 1), 100);
    const client = createSentryClient({
      url: input.url,
      token: input.token.trim(),
      policy: deps.policy,
      resolve: deps.resolve,
      sleep: deps.sleep,
      onWait: hooks.onWait,
    });
    const source = await readSource(client, input.org.trim(), hooks, issuesFrom === null ? null : { cutoff: issuesFrom, cap });
    const targetSlug = input.into ?? importedSlug(source.org.slug);
    const existingOrg = await findOrgBySlug(db, targetSlug);
    if (intoRequired && !existingOrg) throw new AppError("not_found", `No organization "${targetSlug}" here.`);
    if (input.into && !existingOrg)
      throw new AppError("not_found", `No organization "${input.into}" here to import into (leave out --into to create one).`);
    const plans = source.projects.map(planProject);
    await checkConflicts(existingOrg?.id ?? null, plans);

    const report: ImportReport = { dryRun: input.dryRun === true, organization: targetSlug, entries: [] };
    const ruleCount = plans.reduce((n, p) => n + (p.rules.rules?.length ?? 0), 0);
    const issueCount = plans.reduce((n, p) => n + p.issues.length, 0);
    const total =
      1 + source.teams.length + plans.length + (source.members?.length ?? 0) + ruleCount + (source.releases?.length ?? 0) + issueCount;
    const directory = emailDirectory(source.members, source.teams);
    let done = 0;
    const step = async (name: string) => {
      hooks.onProgress?.({ step: name, done: ++done, total });
      // A timer keeps the process alive while it waits for the test's SIGKILL.
      if (!input.dryRun && deps.stallAfter === name) await new Promise(() => setInterval(() => {}, 60_000));
    };

    const apply = async (write: <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>) => {
      const orgId = await write((tx) => applyOrg(tx, targetSlug, source.org.name, report));
      await step("organization");
      const teamIds = new Map<string, number>();
      for (const t of source.teams) {
        const slug = importedSlug(t.slug);
        teamIds.set(slug, await write((tx) => applyTeam(tx, orgId, slug, importedName(t.name, slug), report)));
        await step(`team ${slug}`);
      }
      for (const plan of plans) {
        await write((tx) => applyProject(tx, orgId, plan, teamIds, report));
        await step(`project ${plan.slug}`);
      }
      if (source.members === null) {
        report.entries.push({ kind: "member", name: "*", action: "skipped", note: "the token may not read members (member:read)" });
      }
      for (const m of source.members ?? []) {
        await write((tx) => applyMember(tx, orgId, m, teamIds, report));
        await step(`member ${m.email ?? m.id ?? "?"}`);
      }
      const projectIds = new Map<string, number>();
      for (const plan of plans) {
        const projectId = await write(async (tx) => (await findProjectInOrg(tx, orgId, plan.slug))?.id);
        if (projectId === undefined) continue;
        projectIds.set(plan.sourceSlug, projectId);
        if (plan.rules.rules === null) {
          report.entries.push({
            kind: "alert_rule",
            name: `${plan.slug}/*`,
            action: "skipped",
            note: "the source did not answer its rules",
          });
        }
        if (plan.ownership) {
          const own = plan.ownership;
          await write((tx) => applyOwnership(tx, { orgId, projectId, projectSlug: plan.slug, now: now() }, own, report));
        }
        // Issue-owner mail from a Sentry older than per-rule fallthrough: the project's switch decides.
        const ownersFallthrough = legacyOwnersFallthrough(plan.ownership);
        for (const rule of plan.rules.rules ?? []) {
          const at = { orgId, projectId, projectSlug: plan.slug, now: now() };
          await write((tx) => applyRule(tx, at, rule, plan.rules, directory, report, ownersFallthrough));
          await step(`alert rule ${plan.slug}/${rule.id}`);
        }
      }
      if (source.releases === null) {
        report.entries.push({
          kind: "release",
          name: "*",
          action: "skipped",
          note: "the source did not answer its releases (project:releases)",
        });
      }
      for (const r of source.releases ?? []) {
        await write((tx) => applyRelease(tx, { orgId, projectIds, now: now() }, r, report));
        await step(`release ${r.release.version}`);
      }
      // Issues last: their events name releases, which now have the source's order.
      for (const plan of plans) {
        const projectId = projectIds.get(plan.sourceSlug);
        if (projectId === undefined) continue;
        for (const issue of plan.issues) {
          const at = { orgId, projectId, projectSlug: plan.slug, now: now() };
          await write((tx) => applyIssue(tx, at, issue, report));
          await step(`issue ${plan.slug}/${issue.issue.shortId ?? issue.issue.id}`);
        }
      }
    };

    if (input.dryRun) {
      // The same writes, in one transaction that is rolled back.
      try {
        await writeTx(db, async (tx) => {
          await apply((fn) => fn(tx));
          throw new DryRunRollback();
        });
      } catch (err) {
        if (!(err instanceof DryRunRollback)) throw err;
      }
    } else {
      await apply((fn) => writeTx(db, fn));
      // Ingest in this process sees new and changed keys at once (other processes within seconds).
      invalidate();
    }
    return report;
  }

  async function readSource(
    client: SentryClient,
    org: string,
    hooks: ImportHooks,
    issues: { cutoff: number; cap: number } | null,
  ): Promise<SourceSnapshot> {
    const o = encodeURIComponent(org);
    const orgNotFound = new AppError(
      "import_source_not_found",
      `${client.base} has no organization "${org}" (or the token cannot see it).`,
    );
    const orgRow = await client.get(`/api/0/organizations/${o}/`, sentryOrgSchema, orgNotFound);
    hooks.onProgress?.({ step: "reading teams", done: 0, total: 0 });
    const teams = await client.list(`/api/0/organizations/${o}/teams/`, sentryTeamSchema, orgNotFound);
    hooks.onProgress?.({ step: "reading projects", done: 0, total: 0 });
    const projects = await client.list(`/api/0/organizations/${o}/projects/`, sentryProjectSchema, orgNotFound);
    hooks.onProgress?.({ step: "reading members", done: 0, total: 0 });
    const members = await client.list(`/api/0/organizations/${o}/members/`, sentryMemberSchema).catch((err: unknown) => {
      // A token without member:read still moves everything else; the report says why members did not.
      if (err instanceof AppError && err.code === "import_source_unauthorized") return null;
      throw err;
    });
    const out: SourceSnapshot["projects"] = [];
    for (const [i, project] of projects.entries()) {
      hooks.onProgress?.({ step: `reading project ${project.slug}`, done: i, total: projects.length });
      const p = encodeURIComponent(project.slug);
      const detail = await client.get(`/api/0/projects/${o}/${p}/`, sentryProjectDetailSchema).catch((err: unknown) => {
        // Details only add settings; a server without the endpoint still gives us the project.
        if (err instanceof AppError && err.code === "import_source_not_found") return null;
        throw err;
      });
      const keys = await client.list(`/api/0/projects/${o}/${p}/keys/`, sentryKeySchema);
      const rules = await readProjectRules(client, org, project.slug);
      const ownership = await readOwnership(client, org, project.slug);
      const projectIssues = issues ? await readIssues(client, org, project.slug, issues.cutoff, issues.cap) : [];
      const newest = await newestShortId(client, org, project.slug);
      // A team's own list of projects counts as a link too (Errata answers links only there).
      const teamSlugs = new Set((project.teams ?? []).map((t) => t.slug));
      for (const t of teams) if ((t.projects ?? []).some((tp) => tp.slug === project.slug)) teamSlugs.add(t.slug);
      out.push({
        project: { ...project, teams: [...teamSlugs].map((slug) => ({ slug })) },
        detail,
        keys,
        rules,
        issues: projectIssues,
        ownership,
        newestShortId: newest,
      });
    }
    const releases = await readReleases(client, org, (i, n) => hooks.onProgress?.({ step: "reading releases", done: i, total: n }));
    return { org: { slug: orgRow.slug, name: importedName(orgRow.name, orgRow.slug) }, teams, members, projects: out, releases };
  }

  function planProject(s: SourceSnapshot["projects"][number]): ProjectPlan {
    const slug = importedSlug(s.project.slug);
    const keys: ImportedKey[] = [];
    const skippedKeys: ImportReportEntry[] = [];
    for (const k of s.keys) {
      const r = importedKey(k);
      if (r.ok) keys.push(r.key);
      else skippedKeys.push({ kind: "key", name: `${slug}/${k.label ?? k.name ?? "?"}`, action: "skipped", note: r.reason });
    }
    return {
      slug,
      name: importedName(s.detail?.name ?? s.project.name, slug),
      platform: importedPlatform(s.detail?.platform ?? s.project.platform),
      scrubbing: s.detail ? importedScrubbing(s.detail) : undefined,
      sourceId: sourceProjectId(s.project, s.keys),
      teamSlugs: (s.project.teams ?? []).map((t) => importedSlug(t.slug)),
      keys,
      skippedKeys,
      rules: s.rules,
      issues: s.issues,
      ownership: s.ownership,
      shortIdCeiling: Math.max(shortIdCeiling(s.newestShortId), ...s.issues.map((x) => shortIdCeiling(x.issue.shortId))),
      grouping: s.detail ? groupingRulesPatch(s.detail) : { patch: {}, notes: [] },
      sourceSlug: s.project.slug,
    };
  }

  /** Every reason the run must not start, all at once, before any write. */
  async function checkConflicts(orgId: number | null, plans: ProjectPlan[]): Promise<void> {
    const problems: FieldError[] = [];
    const owners = await findKeyOwners(
      db,
      plans.flatMap((p) => p.keys.map((k) => k.publicKey)),
    );
    const ownerOf = new Map(owners.map((o) => [o.publicKey, o]));
    for (const plan of plans) {
      for (const key of plan.keys) {
        const owner = ownerOf.get(key.publicKey);
        if (!owner) continue;
        if (owner.orgId !== orgId) {
          problems.push({
            field: `${plan.slug}.keys.${key.publicKey}`,
            rule: "import_key_conflict",
            message: `DSN key ${key.publicKey} of project "${plan.slug}" already belongs to a project of another organization here.`,
          });
        } else if (owner.projectSlug !== plan.slug) {
          problems.push({
            field: `${plan.slug}.keys.${key.publicKey}`,
            rule: "import_key_conflict",
            message: `DSN key ${key.publicKey} of project "${plan.slug}" already belongs to project "${owner.projectSlug}" here.`,
          });
        }
      }
    }
    if (problems.length > 0) {
      throw new AppError("import_key_conflict", `Nothing was imported: ${problems.map((p) => p.message).join(" ")}`, { fields: problems });
    }
    if (orgId === null) return;
    const existing = await keysBySlug(db, orgId);
    for (const plan of plans) {
      const here = existing.get(plan.slug);
      if (!here || here.length === 0) continue;
      const ours = new Set(plan.keys.map((k) => k.publicKey));
      if (here.some((k) => ours.has(k))) continue;
      problems.push({
        field: plan.slug,
        rule: "import_project_conflict",
        message: `Project "${plan.slug}" already exists here with other DSN keys.`,
      });
    }
    if (problems.length > 0) {
      throw new AppError("import_project_conflict", `Nothing was imported: ${problems.map((p) => p.message).join(" ")}`, {
        fields: problems,
      });
    }
  }

  async function applyOrg(tx: Tx, slug: string, name: string, report: ImportReport): Promise<number> {
    const org = await findOrgBySlug(tx, slug);
    if (!org) {
      const created = await insertOrg(tx, { slug, name, now: now() });
      report.entries.push({ kind: "organization", name: slug, action: "created" });
      return created.id;
    }
    // An organization imported into keeps its own name; only one this import created follows the source.
    report.entries.push({ kind: "organization", name: slug, action: "unchanged" });
    return org.id;
  }

  async function applyTeam(tx: Tx, orgId: number, slug: string, name: string, report: ImportReport): Promise<number> {
    const team = await findTeamBySlug(tx, orgId, slug);
    if (!team) {
      const id = await insertTeam(tx, { orgId, slug, name, now: now() });
      report.entries.push({ kind: "team", name: slug, action: "created" });
      return id;
    }
    if (team.name !== name) await renameTeam(tx, team.id, name);
    report.entries.push({ kind: "team", name: slug, action: team.name !== name ? "updated" : "unchanged" });
    return team.id;
  }

  async function applyProject(tx: Tx, orgId: number, plan: ProjectPlan, teamIds: Map<string, number>, report: ImportReport): Promise<void> {
    let project: { id: number; name: string; platform: string } | undefined = await findProjectInOrg(tx, orgId, plan.slug);
    let action: ImportReportEntry["action"] = "unchanged";
    const notes: string[] = [];
    if (!project) {
      const keepId = plan.sourceId !== null && !(await isProjectIdTaken(tx, plan.sourceId)) ? plan.sourceId : undefined;
      project = await insertProject(tx, { orgId, slug: plan.slug, name: plan.name, platform: plan.platform, now: now(), id: keepId });
      // The source's rules replace the one a new project starts with (its email channel stays).
      if ((plan.rules.rules?.length ?? 0) > 0) await dropDefaultRules(tx, project.id);
      action = "created";
    } else if (project.name !== plan.name || project.platform !== plan.platform) {
      await updateProjectIdentity(tx, project.id, { name: plan.name, platform: plan.platform });
      action = "updated";
    }
    // The old DSN's project id routes here: it is this project's own id, or an alias on its keys.
    const alias = plan.sourceId !== null && plan.sourceId !== project.id ? plan.sourceId : null;
    if (plan.sourceId !== null) {
      notes.push(
        alias === null
          ? `DSN project id ${plan.sourceId} kept`
          : `id ${plan.sourceId} is taken here: old DSNs with it route to project ${project.id}`,
      );
    }

    {
      const settings = await readProjectSettings(tx, project.id);
      const next: Record<string, unknown> = { ...settings };
      if (plan.scrubbing) {
        const current = readScrubSettings(settings);
        if (JSON.stringify(current) !== JSON.stringify(plan.scrubbing) || settings.scrubbing === undefined) next.scrubbing = plan.scrubbing;
      }
      // Fingerprint and stack-trace rules, in Sentry's syntax as Errata reads it ("" or null: none).
      for (const [key, text] of Object.entries(plan.grouping.patch)) {
        if (text === null) delete next[key];
        else if (text !== undefined) next[key] = text;
      }
      notes.push(...plan.grouping.notes);
      if (JSON.stringify(next) !== JSON.stringify(settings)) {
        await writeProjectSettings(tx, project.id, next);
        if (action === "unchanged") action = "updated";
      }
    }

    // New issues here continue after the source's numbers (its newest issue's, whether or not
    // --issues moves them): none takes a number an imported issue keeps, even when old DSNs
    // deliver between this run and a later one with --issues.
    if (plan.shortIdCeiling > 0) await raiseShortIdCounter(tx, project.id, plan.shortIdCeiling + 1);

    const linked = await teamIdsOfProject(tx, project.id);
    for (const teamSlug of plan.teamSlugs) {
      const teamId = teamIds.get(teamSlug);
      if (teamId === undefined || linked.has(teamId)) continue;
      await setTeamProject(tx, teamId, project.id, true);
      if (action === "unchanged") action = "updated";
    }
    report.entries.push({ kind: "project", name: plan.slug, action, ...(notes.length ? { note: notes.join("; ") } : {}) });

    for (const key of plan.keys) {
      const name = `${plan.slug}/${key.label} (${key.publicKey.slice(0, 8)}…)`;
      const row = { secretKey: key.secretKey, label: key.label, active: key.active, dsnProjectId: alias };
      const existing = await findKeyByPublicKey(tx, key.publicKey);
      if (!existing) {
        await insertImportedKey(tx, { ...row, projectId: project.id, publicKey: key.publicKey, now: now() });
        report.entries.push({ kind: "key", name, action: "created" });
        continue;
      }
      const same =
        existing.secretKey === row.secretKey &&
        existing.label === row.label &&
        existing.active === row.active &&
        existing.dsnProjectId === row.dsnProjectId;
      if (!same) await updateImportedKey(tx, existing.id, row);
      report.entries.push({ kind: "key", name, action: same ? "unchanged" : "updated" });
    }
    report.entries.push(...plan.skippedKeys);
  }

  /**
   * A member becomes an invitation with their role and teams (passwords never move). The link's
   * secret is not shown or mailed: an owner sends each invitation from Settings → Members, which
   * makes a fresh link. Someone already a member here is left as they are.
   */
  async function applyMember(tx: Tx, orgId: number, m: SentryMember, teamIds: Map<string, number>, report: ImportReport): Promise<void> {
    const parsed = importedMember(m);
    if (!parsed.ok) {
      report.entries.push({ kind: "member", name: String(m.id ?? "?"), action: "skipped", note: parsed.reason });
      return;
    }
    const { email, role } = parsed;
    if (await isMemberByEmail(tx, orgId, email)) {
      report.entries.push({ kind: "member", name: email, action: "unchanged", note: "already a member here" });
      return;
    }
    const wanted = parsed.teamSlugs.flatMap((slug) => teamIds.get(slug) ?? []).sort((a, b) => a - b);
    const open = await findOpenInvitation(tx, orgId, email);
    if (!open) {
      const id = await insertImportedInvitation(tx, {
        orgId,
        email,
        role,
        // The secret is thrown away: sending the invitation makes a new one.
        tokenHash: createHash("sha256").update(randomBytes(32)).digest("hex"),
        invitedBy: "import:sentry",
        now: now(),
        expiresAt: now() + deps.invitationDays * DAY,
      });
      await setInvitationTeams(tx, id, wanted);
      report.entries.push({ kind: "member", name: email, action: "created", note: `invited as ${role}; send it from Settings → Members` });
      return;
    }
    const same = open.role === role && open.teamIds.join(",") === wanted.join(",");
    if (!same) {
      await setInvitationRole(tx, open.id, role);
      await setInvitationTeams(tx, open.id, wanted);
    }
    report.entries.push({ kind: "member", name: email, action: same ? "unchanged" : "updated" });
  }

  return {
    importAsOperator: (input, hooks = {}) => run(input, hooks, false),
    async importInto(viewer, input, hooks = {}) {
      const org = await deps.authorize(viewer, input.into, "org.import");
      return run({ ...input, into: org.slug }, hooks, true);
    },
  };
}
