/**
 * The crash-free trigger's hook into the digest. While a batch stores session items, the
 * (project, release, environment) buckets whose counters changed are noted; before the batch
 * transaction commits, each touched release of a project with a crash-free rule is evaluated on
 * the counters the digest keeps (session_aggregates summed for the release: the release page's
 * crash-free figure, per project) and a rule that crosses below its threshold queues ONE message
 * per (rule, release) in the same transaction (the outbox rule). The (rule, release) latch lives
 * in alert_rule_releases, written in that transaction too: a queue item processed again after a
 * rollback sees the same state, one processed after a commit finds the latch set.
 *
 * Release triggers are not about an issue: the rule's environments narrow which sessions count;
 * its other filters (levels, tags, issue age, in-app, the search query) and issue mutes do not
 * apply. The rule's throttle applies per release and its hourly cap as for every message.
 */
import { crashFreeOf, crashFreeStep, type ReleaseSessionTotals } from "../../core/alerts/crash-free";
import { MESSAGE_VERSION, type ReleaseAlert, releasePath } from "../../core/alerts/message";
import type { AlertRule, CrashFreeTrigger } from "../../core/alerts/types";
import { putRuleReleaseState, ruleReleaseStates } from "../../storage/alerts/rules";
import type { Tx } from "../../storage/dialect";
import { releaseSessionTotals } from "../../storage/releases/sessions";
import { type ProjectAlerting, projectAlerting, queueMessages } from "./record-alert-triggers";

interface Touched {
  projectId: number;
  release: string;
  environments: Set<string>;
}

/** Releases whose session counters a batch changed (filled by storeExtras). */
export class TouchedReleases {
  private readonly byKey = new Map<string, Touched>();

  add(projectId: number, release: string, environment: string): void {
    const key = `${projectId}\u0000${release}`;
    let t = this.byKey.get(key);
    if (!t) {
      t = { projectId, release, environments: new Set() };
      this.byKey.set(key, t);
    }
    t.environments.add(environment);
  }

  list(): Touched[] {
    return [...this.byKey.values()];
  }
}

type Project = NonNullable<ProjectAlerting["project"]>;

/** Evaluates the crash-free rules of every touched release (inside the batch transaction). */
export async function recordCrashFreeTriggers(tx: Tx, touched: TouchedReleases, now: number): Promise<void> {
  // One read of a project's rules however many of its releases the batch touched.
  const alertingOf = new Map<number, ProjectAlerting>();
  for (const t of touched.list()) {
    let alerting = alertingOf.get(t.projectId);
    if (!alerting) {
      alerting = await projectAlerting(tx, t.projectId, now);
      alertingOf.set(t.projectId, alerting);
    }
    const project = alerting.project;
    if (!project) continue;
    // Only rules whose environments got sessions: the others' totals did not change.
    const rules = alerting.rules
      .map(({ rule }) => rule)
      .filter((r) => r.triggers.crashFree !== null)
      .filter((r) => r.filters.environments.length === 0 || r.filters.environments.some((e) => t.environments.has(e)));
    if (rules.length === 0) continue;
    const states = await ruleReleaseStates(
      tx,
      rules.map((r) => r.id),
      t.release,
    );
    const totalsOf = new Map<string, ReleaseSessionTotals>();
    for (const rule of rules) {
      const trig = rule.triggers.crashFree as CrashFreeTrigger;
      const environments = [...new Set(rule.filters.environments)].sort();
      const key = environments.join("\u0000");
      let totals = totalsOf.get(key);
      if (!totals) {
        totals = await releaseSessionTotals(tx, t.projectId, t.release, environments);
        totalsOf.set(key, totals);
      }
      const step = crashFreeStep(states.get(rule.id), totals, trig, rule.throttleMinutes, now);
      if (!step.changed) continue;
      await putRuleReleaseState(tx, rule.id, t.release, step.state, now);
      if (step.fired)
        await queueMessages(tx, rule, "crash_free", releaseMessage(rule, trig, project, t.release, environments, totals), {
          projectId: t.projectId,
          issueId: null,
          now,
        });
    }
  }
}

function releaseMessage(
  rule: AlertRule,
  trig: CrashFreeTrigger,
  project: Project,
  version: string,
  environments: string[],
  totals: ReleaseSessionTotals,
): ReleaseAlert {
  return {
    v: MESSAGE_VERSION,
    kind: "release",
    trigger: "crash_free",
    rule: { id: rule.id, name: rule.name },
    org: { slug: project.orgSlug },
    project: { id: project.id, slug: project.slug, name: project.name },
    release: {
      version,
      environments,
      sessions: totals.total,
      crashed: totals.crashed,
      crashFreeSessions: crashFreeOf(totals),
    },
    threshold: { belowPercent: trig.belowPercent, minSessions: trig.minSessions },
    path: releasePath(project.orgSlug, version),
  };
}
