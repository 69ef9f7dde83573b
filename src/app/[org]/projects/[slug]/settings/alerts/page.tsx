import type { Metadata } from "next";
import Link from "next/link";
import type { AlertRule } from "@/core/alerts/types";
import type { ChannelView, DeliveryView } from "@/server/alerts/alerts";
import { ActionButton, NewChannelForm } from "@/ui/alerts/forms";
import { RuleForm } from "@/ui/alerts/rule-form";
import { FALLTHROUGH_LABELS, TARGET_LABELS } from "@/ui/alerts/target-labels";
import { countOf, durationText } from "@/ui/kit/format";
import { ReadOnlyNote, SettingsSection } from "@/ui/kit/settings-section";
import { TimeAgo } from "@/ui/kit/time-ago";
import { orNotFound, param, requireViewer, services } from "../../../../../_lib/server";
import {
  createChannelAction,
  createRuleAction,
  deleteChannelAction,
  deleteRuleAction,
  emailOptOutAction,
  retryDeliveryAction,
  testChannelAction,
  toggleRuleAction,
  updateRuleAction,
} from "./actions";

export const metadata: Metadata = { title: "Alerts" };

function triggerText(r: AlertRule): string {
  const t = r.triggers;
  const parts = [t.newIssue && "new issue", t.regression && "regression", t.unignored && "unignored"].filter(Boolean) as string[];
  const f = t.frequency;
  if (f) {
    const what = [f.events ? countOf(f.events, "event") : null, f.users ? countOf(f.users, "user") : null].filter(Boolean).join(" or ");
    parts.push(`more than ${what} in ${f.minutes} min`);
  }
  // "all": the issue triggers together on one event; crash-free stays a separate trigger.
  const issueText = t.match === "all" ? [parts.join(" and ")] : parts;
  const c = t.crashFree;
  if (c) issueText.push(`crash-free sessions below ${c.belowPercent}% (≥ ${countOf(c.minSessions, "session")})`);
  return issueText.filter(Boolean).join(" · ");
}

function filterText(r: AlertRule): string {
  const f = r.filters;
  const parts: string[] = [];
  if (f.environments.length) parts.push(`environment ${f.environments.join(", ")}`);
  if (f.levels.length) parts.push(`level ${f.levels.join(", ")}`);
  for (const t of f.tags) parts.push(`${t.key} ${t.op} “${t.value}”`);
  if (f.maxIssueAgeMinutes !== null) parts.push(`issue younger than ${f.maxIssueAgeMinutes} min`);
  if (f.inAppOnly) parts.push("in-app frames only");
  if (f.query) parts.push(f.query);
  return parts.join(" · ") || "every issue";
}

/** Without SMTP nothing can be e-mailed: say so first, and what makes alerts reach someone. */
function NoMailNote({ canManage }: { canManage: boolean }) {
  return (
    <div className="mb-4 rounded-md border border-border bg-subtle px-3 py-2 text-[12.5px]" role="note" data-testid="no-mail-note">
      <p className="font-medium">Email is not set up on this installation, so no alert is e-mailed.</p>
      <p className="mt-1 text-fg-muted">
        To send mail, set <code className="font-mono">SMTP_HOST</code> (with <code className="font-mono">SMTP_PORT</code>,{" "}
        <code className="font-mono">SMTP_USER</code>, <code className="font-mono">SMTP_PASSWORD</code> and{" "}
        <code className="font-mono">SMTP_FROM</code> as your provider needs) and restart Errata, then add an email channel.{" "}
        {canManage ? (
          <>
            Or, without mail, <a href="#channels">add a channel</a> — Slack, Discord, Microsoft Teams, Mattermost, Telegram, ntfy, Google
            Chat or a generic webhook — and choose it in a rule.
          </>
        ) : (
          "Or ask an admin to add a chat or webhook channel (Slack, Discord, Teams, …) and choose it in a rule."
        )}
      </p>
    </div>
  );
}

const STATUS_CLASS: Record<string, string> = {
  sent: "",
  pending: "border-dashed",
  failed: "border-danger text-danger",
  held: "border-dashed",
  summarised: "",
  paired: "",
};

/** Alert rules (`?edit=<id>` opens one in the editor), their channels with "send a test", the delivery log with "retry now", and the viewer's own email choice. */
export default async function AlertsPage({
  params,
  searchParams,
}: {
  params: Promise<{ org: string; slug: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { org, slug } = await params;
  const editing = Number(param((await searchParams).edit)?.slice(0, 20));
  const base = `/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings`;
  const viewer = await requireViewer(`${base}/alerts`);
  const s = await services();
  const [settings, overview, log] = await Promise.all([
    orNotFound(s.projects.settings(viewer, org, slug)),
    orNotFound(s.alerts.overview(viewer, org, slug)),
    orNotFound(s.alerts.deliveries(viewer, org, slug, { limit: 50 })),
  ]);
  const canManage = overview.canManage;
  const hidden = { org, project: settings.project.slug };
  const channels = new Map(overview.channels.map((c) => [c.id, c]));
  const now = Date.now();
  return (
    <div>
      {canManage ? null : <ReadOnlyNote role={settings.role} />}
      {overview.emailConfigured ? null : <NoMailNote canManage={canManage} />}
      <SettingsSection
        id="rules"
        title="Alert rules"
        description="A rule sends a message when its trigger fires and its filters match. Each issue alerts a rule at most once per throttle period; beyond a rule's hourly cap, messages are held and sent later as one summary."
      >
        <ul className="flex flex-col divide-y divide-border rounded-md border border-border" aria-label="Rules">
          {overview.rules.map((r) => (
            <li key={r.id} id={`rule-${r.id}`} className="scroll-mt-16 px-4 py-3" data-testid="rule-row" data-rule-name={r.name}>
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="font-semibold">{r.name}</span>
                <span className={`badge ${r.enabled ? "" : "border-dashed"}`}>{r.enabled ? "on" : "paused"}</span>
                <span className="text-[12px] text-fg-dim">
                  {r.throttleMinutes > 0 ? `at most once per issue every ${durationText(r.throttleMinutes)}` : "no per-issue throttle"} ·{" "}
                  {r.hourlyCap}/hour
                </span>
                {canManage ? (
                  <span className="ml-auto flex gap-2">
                    {editing === r.id ? (
                      <Link href={`${base}/alerts#rule-${r.id}`} className="btn btn-sm" scroll={false}>
                        Close
                      </Link>
                    ) : (
                      <Link href={`${base}/alerts?edit=${r.id}#rule-${r.id}`} className="btn btn-sm" aria-label={`Edit rule ${r.name}`}>
                        Edit
                      </Link>
                    )}
                    <ActionButton
                      action={toggleRuleAction}
                      values={{ ...hidden, ruleId: String(r.id) }}
                      label={r.enabled ? "Pause" : "Enable"}
                    />
                    <ActionButton
                      action={deleteRuleAction}
                      values={{ ...hidden, ruleId: String(r.id) }}
                      label="Delete"
                      ariaLabel={`Delete rule ${r.name}`}
                      danger
                    />
                  </span>
                ) : null}
              </div>
              <dl className="mt-1 grid grid-cols-[90px_minmax(0,1fr)] gap-x-3 text-[12.5px]">
                <dt className="text-fg-muted">When</dt>
                <dd>{triggerText(r)}</dd>
                <dt className="text-fg-muted">Only</dt>
                <dd className="font-mono text-[12px]">{filterText(r)}</dd>
                <dt className="text-fg-muted">Send to</dt>
                <dd>
                  {[
                    ...r.channelIds.map((id) => channels.get(id)?.name ?? `deleted channel #${id}`),
                    ...r.targets.map((t) => `${TARGET_LABELS[t.type]} (or ${FALLTHROUGH_LABELS[t.fallthrough]})`),
                  ].join(", ") || "nowhere yet"}
                </dd>
              </dl>
              {canManage && editing === r.id ? (
                <div className="mt-3 border-t border-border pt-3">
                  <RuleForm
                    action={updateRuleAction}
                    hidden={{ ...hidden, ruleId: String(r.id) }}
                    channels={overview.channels}
                    rule={r}
                    prefix={`rule-${r.id}`}
                    submitLabel="Save rule"
                    testId="edit-rule"
                  />
                </div>
              ) : null}
            </li>
          ))}
          {overview.rules.length === 0 ? (
            <li className="px-4 py-3 text-fg-muted">No rules: nobody is told when something breaks.</li>
          ) : null}
        </ul>
      </SettingsSection>

      <SettingsSection
        id="channels"
        title="Channels"
        description="Where rules send. “Send a test” delivers a test message now and shows what the remote answered."
      >
        {overview.channels.length === 0 ? (
          <p className="text-fg-muted" data-testid="no-channels">
            No channels yet: rules have nowhere to send.
          </p>
        ) : null}
        <ul className="flex flex-col divide-y divide-border rounded-md border border-border empty:hidden" aria-label="Channels">
          {overview.channels.map((c: ChannelView) => (
            <li
              key={c.id}
              className="flex flex-wrap items-center gap-x-3 gap-y-2 px-4 py-2.5"
              data-testid="channel-row"
              data-channel-name={c.name}
            >
              <span className="font-semibold">{c.name}</span>
              <span className="badge">{c.kind === "webhook" ? "generic webhook" : c.kind}</span>
              <span className="font-mono text-[12px] text-fg-dim">{c.target}</span>
              {canManage ? (
                <span className="ml-auto flex flex-wrap gap-2">
                  <ActionButton
                    action={testChannelAction}
                    values={{ ...hidden, channelId: String(c.id) }}
                    label="Send a test"
                    ariaLabel={`Send a test to ${c.name}`}
                    testId={`test-channel-${c.id}`}
                  />
                  <ActionButton
                    action={deleteChannelAction}
                    values={{ ...hidden, channelId: String(c.id) }}
                    label="Delete"
                    ariaLabel={`Delete channel ${c.name}`}
                    danger
                  />
                </span>
              ) : null}
            </li>
          ))}
        </ul>
        {canManage ? (
          <div className="mt-4">
            <NewChannelForm action={createChannelAction} hidden={hidden} />
          </div>
        ) : null}
      </SettingsSection>

      {canManage ? (
        <SettingsSection
          id="new-rule"
          title="New rule"
          description="Choose at least one trigger and one channel. Filters are optional; the query uses the issue stream's search language."
        >
          <RuleForm
            action={createRuleAction}
            hidden={hidden}
            channels={overview.channels}
            prefix="rule"
            submitLabel="Create rule"
            testId="new-rule"
          />
        </SettingsSection>
      ) : null}

      <SettingsSection
        id="log"
        title="Delivery log"
        description="The latest 50 messages: when, what, where, and what the remote said. Failed messages can be retried."
      >
        <div className="overflow-x-auto rounded-md border border-border">
          <table className="stack-table w-full text-[12.5px] tabular-nums" aria-label="Delivery log">
            <thead className="bg-subtle text-left text-fg-muted">
              <tr>
                <th className="px-3 py-1.5 font-medium">When</th>
                <th className="px-3 py-1.5 font-medium">What</th>
                <th className="px-3 py-1.5 font-medium">Channel</th>
                <th className="px-3 py-1.5 font-medium">Result</th>
                <th className="px-3 py-1.5 font-medium">Answer / last error</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {log.map((d: DeliveryView) => (
                <tr key={d.id} data-testid="delivery-row" data-status={d.status} data-kind={d.kind}>
                  <td className="px-3 py-1.5 whitespace-nowrap" data-label="When">
                    <TimeAgo ms={d.createdAt} now={now} />
                  </td>
                  <td className="max-w-[260px] truncate px-3 py-1.5" title={d.title}>
                    {d.trigger ? <span className="text-fg-dim">{d.trigger.replace("_", " ")} · </span> : null}
                    {d.title}
                  </td>
                  <td className="px-3 py-1.5 whitespace-nowrap" data-label="Channel">
                    {d.target ? `${TARGET_LABELS[d.target]} (email)` : (channels.get(d.channelId)?.name ?? `#${d.channelId}`)}
                  </td>
                  <td className="px-3 py-1.5 whitespace-nowrap" data-label="Result">
                    <span className="flex items-center gap-2">
                      <span className={`badge ${STATUS_CLASS[d.status] ?? ""}`}>{d.status}</span>
                      {d.attempts > 1 ? <span className="text-fg-dim">{d.attempts} tries</span> : null}
                      {canManage && (d.status === "failed" || (d.status === "pending" && d.lastError)) ? (
                        <ActionButton action={retryDeliveryAction} values={{ ...hidden, notificationId: String(d.id) }} label="Retry now" />
                      ) : null}
                    </span>
                  </td>
                  <td className="max-w-[240px] truncate px-3 py-1.5 font-mono text-[12px]" title={d.lastError ?? d.responseBody ?? ""}>
                    {d.lastError ?? [d.responseStatus, d.responseBody].filter((v) => v !== null && v !== "").join(" ")}
                  </td>
                </tr>
              ))}
              {log.length === 0 ? (
                <tr>
                  <td colSpan={5} className="px-3 py-3 text-fg-muted">
                    Nothing sent yet.
                  </td>
                </tr>
              ) : null}
            </tbody>
          </table>
        </div>
      </SettingsSection>

      <SettingsSection
        id="my-email"
        title="Your email from this project"
        description="Email channels without explicit recipients send to every member who can see this project; you can leave this project out."
      >
        <ActionButton
          action={emailOptOutAction}
          values={{ ...hidden, optOut: overview.emailOptOut ? "false" : "true" }}
          label={overview.emailOptOut ? "Email me again" : "Stop emailing me"}
        />
        <p className="mt-1 text-[12px] text-fg-dim">
          {/* Without SMTP nobody gets mail: saying "you get them" would be the page's own stale message. */}
          {!overview.emailConfigured
            ? "Email is not set up on this installation, so nobody gets alert emails yet; this choice applies once it is."
            : overview.emailOptOut
              ? "You do not get this project's alert emails."
              : "You get this project's alert emails."}
        </p>
      </SettingsSection>
    </div>
  );
}
