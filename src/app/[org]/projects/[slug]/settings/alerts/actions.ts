"use server";
/**
 * Alert settings as Server Actions, each one service call (src/server/alerts/alerts.ts validates
 * and authorizes): channels (create, delete, send a test), rules (create, edit, enable/disable, delete),
 * the delivery log's "retry now", and the viewer's own email opt-out.
 */
import type { FormResult } from "@/ui/kit/settings-form";
import { services } from "../../../../../_lib/server";
import { fail, lines, ok, okWithWarning, optionalNumber, runForm, text } from "../../../form-result";

function target(data: FormData) {
  const org = text(data, "org", 100);
  const project = text(data, "project", 100);
  return { org, project, path: `/${org}/projects/${project}/settings/alerts` };
}

const id = (data: FormData, name: string) => Number(text(data, name, 20));

// permission: alert.write
export async function createChannelAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const kind = text(data, "kind", 20);
  const url = text(data, "url", 2000).trim();
  const config: Record<string, unknown> =
    kind === "email"
      ? { to: lines(data, "to") }
      : kind === "pagerduty" || kind === "opsgenie"
        ? {
            [kind === "pagerduty" ? "routingKey" : "apiKey"]: text(data, kind === "pagerduty" ? "routingKey" : "apiKey", 200).trim(),
            ...(url ? { url } : {}),
          }
        : kind === "telegram"
          ? { botToken: text(data, "botToken", 200).trim(), chatId: text(data, "chatId", 100).trim(), ...(url ? { url } : {}) }
          : { url, ...(text(data, "secret", 200) ? { secret: text(data, "secret", 200) } : {}) };
  return runForm(async (viewer) => {
    const c = await (await services()).alerts.createChannel(viewer, org, project, { kind, name: text(data, "name", 100), config });
    return okWithWarning(`Channel “${c.name}” added.`, c.warning);
  }, path);
}

// permission: alert.write
export async function deleteChannelAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  return runForm(async (viewer) => {
    await (await services()).alerts.deleteChannel(viewer, org, project, id(data, "channelId"));
    return ok("Channel deleted.");
  }, path);
}

/** Sends a test message through the outbox and shows what the remote answered. */
// permission: alert.write
export async function testChannelAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  return runForm(async (viewer) => {
    const d = await (await services()).alerts.testChannel(viewer, org, project, id(data, "channelId"));
    const answer = [d.responseStatus !== null ? `HTTP ${d.responseStatus}` : null, d.responseBody?.slice(0, 200) || null]
      .filter(Boolean)
      .join(" — ");
    if (d.status === "sent") return ok(`Delivered. Remote answered: ${answer || "OK"}`);
    if (d.status === "pending" && d.attempts === 0)
      return fail("Not sent yet: is a worker running? The delivery log will show the result.");
    return fail(`Not delivered: ${d.lastError ?? "unknown error"}${answer ? ` (${answer})` : ""}`);
  }, path);
}

/** "2" + "hours" → 120; empty → null (the default); what is not a number goes on for the service to refuse. */
function minutesOf(data: FormData, name: string): number | string | null {
  const v = optionalNumber(data, `${name}Value`);
  if (typeof v !== "number") return v;
  const unit = ({ minutes: 1, hours: 60, days: 1440 } as Record<string, number>)[text(data, `${name}Unit`, 10)] ?? 1;
  return Math.round(v * unit);
}

/** Tag filter rows; a row left entirely empty is no filter. */
function tagRows(data: FormData) {
  const all = (name: string) => data.getAll(name).map((v) => (typeof v === "string" ? v.slice(0, 250).trim() : ""));
  const ops = all("tagOp");
  const values = all("tagValue");
  return all("tagKey")
    .map((key, i) => ({ key, op: ops[i] ?? "equals", value: values[i] ?? "" }))
    .filter((t) => t.key !== "" || t.value !== "");
}

/** The rule form's fields as the service's rule input (rule-input.ts validates it). */
function ruleInput(data: FormData) {
  const events = optionalNumber(data, "freqEvents");
  const users = optionalNumber(data, "freqUsers");
  const frequency =
    events !== null || users !== null
      ? { events: events ?? 0, users: users ?? 0, minutes: optionalNumber(data, "freqMinutes") ?? 60 }
      : null;
  // The numbers may be left empty: the defaults (95 %, 50 sessions) come from rule-input.ts.
  const below = optionalNumber(data, "crashFreeBelow");
  const minSessions = optionalNumber(data, "crashFreeMinSessions");
  const crashFree =
    data.get("crashFree") === "on"
      ? { ...(below !== null ? { belowPercent: below } : {}), ...(minSessions !== null ? { minSessions } : {}) }
      : null;
  return {
    name: text(data, "name", 100),
    triggers: {
      newIssue: data.get("newIssue") === "on",
      regression: data.get("regression") === "on",
      unignored: data.get("unignored") === "on",
      frequency,
      crashFree,
      match: data.get("triggerMatch") === "all" ? "all" : "any",
    },
    filters: {
      environments: lines(data, "environments"),
      levels: data.getAll("levels").filter((v): v is string => typeof v === "string"),
      inAppOnly: data.get("inAppOnly") === "on",
      maxIssueAgeMinutes: minutesOf(data, "maxIssueAge"),
      query: text(data, "query", 1000),
      tags: tagRows(data),
    },
    channelIds: data
      .getAll("channelIds")
      .map((v) => Number(v))
      .filter((n) => Number.isSafeInteger(n)),
    targets: (["targetOwners", "targetSuspects"] as const)
      .filter((name) => data.get(name) === "on")
      .map((name) => ({
        type: name === "targetOwners" ? "issue_owners" : "suspect_commits",
        fallthrough: text(data, `${name}Fallthrough`, 20) || "active_members",
      })),
    throttleMinutes: minutesOf(data, "throttle") ?? undefined,
    hourlyCap: optionalNumber(data, "hourlyCap") ?? undefined,
  };
}

// permission: alert.write
export async function createRuleAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const input = ruleInput(data);
  return runForm(async (viewer) => {
    const r = await (await services()).alerts.createRule(viewer, org, project, input);
    return ok(`Rule “${r.name}” created.`);
  }, path);
}

/** Saves the whole form over the rule; whether it is paused stays as it is (Pause/Enable changes that). */
// permission: alert.write
export async function updateRuleAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const input = ruleInput(data);
  return runForm(async (viewer) => {
    await (await services()).authorize(viewer, org, "alert.write");
    const s = (await services()).alerts;
    const rule = await s.getRule(viewer, org, project, id(data, "ruleId"));
    const saved = await s.updateRule(viewer, org, project, rule.id, { ...input, enabled: rule.enabled });
    return ok(`Rule “${saved.name}” saved.`);
  }, path);
}

// permission: alert.write
export async function toggleRuleAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  return runForm(async (viewer) => {
    await (await services()).authorize(viewer, org, "alert.write");
    const s = (await services()).alerts;
    const rule = await s.getRule(viewer, org, project, id(data, "ruleId"));
    const { id: _id, projectId: _p, createdAt: _c, updatedAt: _u, ...settings } = rule;
    await s.updateRule(viewer, org, project, rule.id, { ...settings, enabled: !rule.enabled });
    return ok(rule.enabled ? "Rule paused." : "Rule enabled.");
  }, path);
}

// permission: alert.write
export async function deleteRuleAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  return runForm(async (viewer) => {
    await (await services()).alerts.deleteRule(viewer, org, project, id(data, "ruleId"));
    return ok("Rule deleted.");
  }, path);
}

// permission: alert.write
export async function retryDeliveryAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  return runForm(async (viewer) => {
    await (await services()).alerts.retryNow(viewer, org, project, id(data, "notificationId"));
    return ok("Queued again.");
  }, path);
}

// permission: alert.read
export async function emailOptOutAction(_prev: FormResult, data: FormData): Promise<FormResult> {
  const { org, project, path } = target(data);
  const optOut = data.get("optOut") === "true";
  return runForm(async (viewer) => {
    await (await services()).alerts.setEmailOptOut(viewer, org, project, optOut);
    return ok(optOut ? "This project no longer emails you." : "This project emails you again.");
  }, path);
}
