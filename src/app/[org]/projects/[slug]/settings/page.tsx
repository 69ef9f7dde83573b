import type { Metadata } from "next";
import { SettingsForm } from "@/ui/kit/settings-form";
import { Field, ReadOnlyNote, SettingsSection } from "@/ui/kit/settings-section";
import { TimeAgo } from "@/ui/kit/time-ago";
import { platformLabel } from "@/ui/onboarding/platforms";
import { GroupingPreview } from "@/ui/orgs/grouping-preview";
import { orNotFound, requireViewer, services } from "../../../../_lib/server";
import { previewGroupingAction, updateSettingsAction } from "./actions";

export const metadata: Metadata = { title: "Project settings" };

const fmt = (n: number) => n.toLocaleString("en-US");

/** General settings: the project, retention, rate limit, grouping version. */
export default async function GeneralSettingsPage({ params }: { params: Promise<{ org: string; slug: string }> }) {
  const { org, slug } = await params;
  const viewer = await requireViewer(`/${encodeURIComponent(org)}/projects/${encodeURIComponent(slug)}/settings`);
  const s = await services();
  const v = await orNotFound(s.projects.settings(viewer, org, slug));
  const hidden = (section: string) => ({ org, project: v.project.slug, section });
  const inst = v.rateLimit.installation;
  const now = Date.now();
  return (
    <div>
      {v.canManage ? null : <ReadOnlyNote role={v.role} />}
      <SettingsSection id="project" title="Project">
        <dl className="grid grid-cols-[140px_minmax(0,1fr)] gap-y-1.5 text-[13px]">
          <dt className="text-fg-muted">Name</dt>
          <dd>{v.project.name}</dd>
          <dt className="text-fg-muted">Slug</dt>
          <dd className="font-mono text-[12px]">{v.project.slug}</dd>
          <dt className="text-fg-muted">Platform</dt>
          <dd>{platformLabel(v.project.platform)}</dd>
          <dt className="text-fg-muted">Project id</dt>
          <dd className="tabular font-mono text-[12px]">{v.project.id}</dd>
          <dt className="text-fg-muted">Created</dt>
          <dd>
            <TimeAgo ms={v.project.createdAt} now={now} />
          </dd>
        </dl>
      </SettingsSection>

      <SettingsSection
        id="retention"
        title="Retention"
        description={
          <>
            Events older than this are deleted, and the project keeps at most this many events (the oldest and most repeated go first; an
            issue&apos;s first and latest events stay, and counts stay exact). Leave a field empty for the installation default.
          </>
        }
      >
        <SettingsForm
          action={updateSettingsAction}
          hidden={hidden("retention")}
          canManage={v.canManage}
          fieldLabels={{ retentionDays: "Keep events for", eventCap: "Event cap" }}
          testId="retention-form"
        >
          <Field id="retentionDays" label="Keep events for (days)" hint={`Default: ${v.retention.defaultDays} days`}>
            <input
              id="retentionDays"
              name="retentionDays"
              className="input tabular max-w-[180px]"
              inputMode="numeric"
              defaultValue={v.retention.days ?? ""}
              placeholder={String(v.retention.defaultDays)}
            />
          </Field>
          <Field id="eventCap" label="Event cap" hint={`Default: ${fmt(v.retention.defaultEventCap)} events`}>
            <input
              id="eventCap"
              name="eventCap"
              className="input tabular max-w-[180px]"
              inputMode="numeric"
              defaultValue={v.retention.eventCap ?? ""}
              placeholder={String(v.retention.defaultEventCap)}
            />
          </Field>
        </SettingsForm>
      </SettingsSection>

      <SettingsSection
        id="rate-limit"
        title="Rate limit"
        description={
          <>
            A ceiling on error events this project accepts per minute; beyond it SDKs are told to back off (HTTP 429 with{" "}
            <code>Retry-After</code>) and the refused events are counted as rate limited. Sessions and client reports are never limited.
          </>
        }
      >
        <SettingsForm
          action={updateSettingsAction}
          hidden={hidden("rateLimit")}
          canManage={v.canManage}
          fieldLabels={{ rateLimit: "Events per minute", "rateLimit.eventsPerMinute": "Events per minute" }}
          testId="rate-limit-form"
        >
          <Field id="eventsPerMinute" label="Events per minute" hint="Empty: no project limit">
            <input
              id="eventsPerMinute"
              name="eventsPerMinute"
              className="input tabular max-w-[180px]"
              inputMode="numeric"
              defaultValue={v.rateLimit.eventsPerMinute ?? ""}
              placeholder="No limit"
            />
          </Field>
        </SettingsForm>
        <p className="mt-3 max-w-[68ch] text-[12.5px] text-fg-dim" data-testid="rate-limit-note">
          The installation also applies its own limits (<code>RATE_LIMIT_*</code> settings):{" "}
          {inst.projectEvents > 0 ? `${fmt(inst.projectEvents)} events per project every ${inst.windowSeconds} s` : "no per-project limit"};{" "}
          {inst.keyEvents > 0 ? `${fmt(inst.keyEvents)} events per key every ${inst.windowSeconds} s` : "no per-key limit"}. Each ingest
          process counts on its own, so several processes each allow the limit.
        </p>
      </SettingsSection>

      <SettingsSection
        id="replays"
        title="Session replay"
        description={
          <>
            Recordings the SDK&apos;s Replay integration sends, masked as the SDK masks them, scrubbed with this project&apos;s data
            scrubbing, kept {v.replays.retentionDays} days (<code>REPLAY_RETENTION_DAYS</code>). Off: this project&apos;s replays are
            refused at ingest and the SDKs are told to stop sending them; those already stored stay until they expire.
          </>
        }
      >
        <SettingsForm
          action={updateSettingsAction}
          hidden={hidden("replays")}
          canManage={v.canManage}
          fieldLabels={{ replays: "Session replay" }}
          testId="replays-form"
        >
          <label className="flex items-center gap-2">
            <input type="checkbox" name="replaysEnabled" defaultChecked={v.replays.enabled} />
            Store session replays for this project
          </label>
        </SettingsForm>
      </SettingsSection>

      <SettingsSection
        id="grouping"
        title="Grouping"
        description={
          <>
            How events become issues. Switching versions keeps existing issues: for {v.grouping.transitionDays} days events are matched by
            both the new and the previous version, so nothing splits into duplicates overnight.
          </>
        }
      >
        <SettingsForm
          action={updateSettingsAction}
          hidden={hidden("grouping")}
          canManage={v.canManage}
          fieldLabels={{ groupingVersion: "Version" }}
        >
          <Field
            id="groupingVersion"
            label="Grouping version"
            hint={
              v.grouping.previous && v.grouping.switchedAt ? (
                <>
                  Switched from {v.grouping.previous} <TimeAgo ms={v.grouping.switchedAt} now={now} />
                </>
              ) : (
                "Never switched"
              )
            }
          >
            <select id="groupingVersion" name="groupingVersion" className="input max-w-[180px]" defaultValue={v.grouping.version}>
              {v.grouping.versions.map((g) => (
                <option key={g} value={g}>
                  {g}
                  {g === v.grouping.versions.at(-1) ? " (latest)" : ""}
                </option>
              ))}
            </select>
          </Field>
        </SettingsForm>
      </SettingsSection>

      <SettingsSection
        id="grouping-rules"
        title="Grouping rules"
        description={
          <>
            Sentry&apos;s fingerprint and stack trace rules, one a line, in Sentry&apos;s syntax (<code>#</code> starts a comment). They
            apply to events received from now on; an issue&apos;s &ldquo;why grouped here&rdquo; names the rule that decided.
          </>
        }
      >
        <SettingsForm
          action={updateSettingsAction}
          hidden={hidden("groupingRules")}
          canManage={v.canManage}
          fieldLabels={{ fingerprintingRules: "Fingerprint rules", groupingEnhancements: "Stack trace rules" }}
          testId="grouping-rules-form"
        >
          <Field
            id="fingerprintingRules"
            label="Fingerprint rules"
            hint={
              <>
                <code>matchers -&gt; fingerprint</code>, e.g. <code>error.type:DatabaseError -&gt; database, {"{{ transaction }}"}</code>
              </>
            }
          >
            <textarea
              id="fingerprintingRules"
              name="fingerprintingRules"
              className="input h-auto min-h-[96px] py-1.5 font-mono text-[12px]"
              rows={5}
              spellCheck={false}
              defaultValue={v.grouping.fingerprintingRules}
              placeholder={'error.type:ChunkLoadError -> chunk-load\nstack.function:"fetch*" -> {{ default }}, network'}
            />
          </Field>
          <Field
            id="groupingEnhancements"
            label="Stack trace rules"
            hint={
              v.grouping.stackRulesApply ? (
                <>
                  <code>matchers actions</code>, e.g. <code>stack.module:com.shop.util.* -group</code>
                </>
              ) : (
                <>Not yet applied: grouping {v.grouping.version} ignores stack trace rules; switch to v3 above.</>
              )
            }
          >
            <textarea
              id="groupingEnhancements"
              name="groupingEnhancements"
              className="input h-auto min-h-[96px] py-1.5 font-mono text-[12px]"
              rows={5}
              spellCheck={false}
              defaultValue={v.grouping.groupingEnhancements}
              placeholder={"stack.module:io.netty.* -app\nstack.function:assert* ^-group"}
            />
          </Field>
        </SettingsForm>
        {/* Regrouping with draft rules is part of editing them: only for those who may. */}
        {v.canManage ? <GroupingPreview org={org} project={v.project.slug} action={previewGroupingAction} /> : null}
      </SettingsSection>
    </div>
  );
}
