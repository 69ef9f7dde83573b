/**
 * Sentry's issue update body (`PUT /api/0/organizations/{org}/issues/{id}/` and the bulk form)
 * validated strictly and turned into commands for the state machine; and the reverse:
 * `statusDetails` for a stored state.
 */
import { z } from "zod";
import { AppError, type FieldError } from "../errors";
import { validate } from "../validation";
import type { IgnoreCommand, IgnoreCondition, IssueState, Resolution } from "./types";

const MINUTE = 60_000;
/** Windows and durations beyond a year are almost certainly mistakes (Sentry's UI offers ≤ 1 week). */
const MAX_MINUTES = 366 * 24 * 60;
const MAX_COUNT = 1_000_000_000;

const minutes = z.number().int().min(1).max(MAX_MINUTES);
const count = z.number().int().min(1).max(MAX_COUNT);

export const statusDetailsSchema = z
  .object({
    inRelease: z.string().trim().min(1).max(250).optional(),
    inNextRelease: z.boolean().optional(),
    ignoreDuration: minutes.optional(),
    ignoreUntil: z.iso.datetime({ offset: true }).optional(),
    ignoreCount: count.optional(),
    ignoreWindow: minutes.optional(),
    ignoreUserCount: count.optional(),
    ignoreUserWindow: minutes.optional(),
  })
  .strict();

const statusSchema = z.enum(["resolved", "unresolved", "ignored", "resolvedInNextRelease"]);

export const issueUpdateSchema = z
  .object({
    status: statusSchema.optional(),
    statusDetails: statusDetailsSchema.optional(),
    // Sentry clients send the substatus that goes with the status; Errata derives it, except that an
    // unresolve may name new / ongoing / regressed (Undo puts an issue back exactly as it was).
    substatus: z.string().max(50).nullable().optional(),
    assignedTo: z.string().trim().max(320).nullable().optional(),
  })
  .strict();

export type IssueUpdateBody = z.infer<typeof issueUpdateSchema>;

export type ResolutionRequest = { kind: "now" } | { kind: "in_release"; release: string } | { kind: "in_next_release" };

export type StatusCommand =
  | { op: "resolve"; resolution: ResolutionRequest }
  | { op: "ignore"; condition: IgnoreCommand }
  /** `substatus`: the unresolved substatus to return to (Undo restores the one before a resolve) */
  | { op: "unresolve"; substatus?: "new" | "ongoing" | "regressed" };

export interface IssueCommand {
  status?: StatusCommand;
  /** undefined: leave as is; null: unassign; else a user id, `user:<id>` or an email */
  assignedTo?: string | null;
}

function fail(field: string, rule: string, message: string): never {
  const fields: FieldError[] = [{ field, rule, message }];
  throw new AppError("validation_failed", `${field}: ${message}`, { fields });
}

type Details = z.infer<typeof statusDetailsSchema>;

const present = (d: Details, keys: Array<keyof Details>): Array<keyof Details> => keys.filter((k) => d[k] !== undefined);

const RESOLVE_KEYS: Array<keyof Details> = ["inRelease", "inNextRelease"];
const IGNORE_KEYS: Array<keyof Details> = [
  "ignoreDuration",
  "ignoreUntil",
  "ignoreCount",
  "ignoreWindow",
  "ignoreUserCount",
  "ignoreUserWindow",
];

function resolveCommand(d: Details, nextRelease: boolean): StatusCommand {
  const wrong = present(d, IGNORE_KEYS);
  if (wrong.length > 0) fail(`statusDetails.${wrong[0]}`, "status", "only valid with status ignored");
  if (d.inRelease !== undefined && (d.inNextRelease || nextRelease))
    fail("statusDetails", "exclusive", "use either inRelease or inNextRelease");
  if (d.inNextRelease === false && !nextRelease) fail("statusDetails.inNextRelease", "literal", "must be true when given");
  if (d.inRelease !== undefined) return { op: "resolve", resolution: { kind: "in_release", release: d.inRelease } };
  if (d.inNextRelease || nextRelease) return { op: "resolve", resolution: { kind: "in_next_release" } };
  return { op: "resolve", resolution: { kind: "now" } };
}

function ignoreCommand(d: Details, now: number): StatusCommand {
  const wrong = present(d, RESOLVE_KEYS);
  if (wrong.length > 0) fail(`statusDetails.${wrong[0]}`, "status", "only valid with status resolved");
  if (d.ignoreWindow !== undefined && d.ignoreCount === undefined) fail("statusDetails.ignoreWindow", "requires", "needs ignoreCount");
  if (d.ignoreUserWindow !== undefined && d.ignoreUserCount === undefined)
    fail("statusDetails.ignoreUserWindow", "requires", "needs ignoreUserCount");
  const groups = present(d, ["ignoreDuration", "ignoreUntil", "ignoreCount", "ignoreUserCount"]);
  if (groups.length > 1) fail("statusDetails", "exclusive", `give one ignore condition, not ${groups.join(" and ")}`);
  const kind = groups[0];
  if (kind === undefined) return { op: "ignore", condition: { kind: "forever" } };
  if (kind === "ignoreDuration")
    return { op: "ignore", condition: { kind: "until_time", until: now + (d.ignoreDuration as number) * MINUTE } };
  if (kind === "ignoreUntil") {
    const until = Date.parse(d.ignoreUntil as string);
    if (!(until > now)) fail("statusDetails.ignoreUntil", "future", "must be in the future");
    return { op: "ignore", condition: { kind: "until_time", until } };
  }
  if (kind === "ignoreCount")
    return { op: "ignore", condition: { kind: "until_events", count: d.ignoreCount as number, windowMinutes: d.ignoreWindow ?? null } };
  return {
    op: "ignore",
    condition: { kind: "until_users", count: d.ignoreUserCount as number, windowMinutes: d.ignoreUserWindow ?? null },
  };
}

/** Validates a Sentry-shaped update body (throws `validation_failed` naming the field). */
export function parseIssueUpdate(input: unknown, now: number): IssueCommand {
  const body = validate(issueUpdateSchema, input);
  const details = body.statusDetails ?? {};
  const cmd: IssueCommand = {};
  if (body.assignedTo !== undefined) cmd.assignedTo = body.assignedTo === "" ? null : body.assignedTo;
  if (body.status === undefined) {
    if (Object.keys(details).length > 0) fail("statusDetails", "requires", "needs status");
    if (cmd.assignedTo === undefined) fail("body", "empty", "nothing to update: give status or assignedTo");
    return cmd;
  }
  if (body.status === "unresolved") {
    if (Object.keys(details).length > 0) fail("statusDetails", "status", "not valid with status unresolved");
    const sub = body.substatus;
    cmd.status = sub === "new" || sub === "regressed" ? { op: "unresolve", substatus: sub } : { op: "unresolve" };
  } else if (body.status === "ignored") {
    cmd.status = ignoreCommand(details, now);
  } else {
    cmd.status = resolveCommand(details, body.status === "resolvedInNextRelease");
  }
  return cmd;
}

/** Sentry's `statusDetails` for a stored state. */
export function statusDetailsOf(state: {
  status: string;
  resolution: Resolution | null;
  ignore: IgnoreCondition | null;
}): Record<string, unknown> {
  if (state.status === "resolved" && state.resolution) {
    if (state.resolution.kind === "in_release") return { inRelease: state.resolution.release };
    if (state.resolution.kind === "in_next_release") return { inNextRelease: true };
    return {};
  }
  if (state.status !== "ignored" || !state.ignore) return {};
  const ig = state.ignore;
  switch (ig.kind) {
    case "forever":
      return {};
    case "until_time":
      return { ignoreUntil: new Date(ig.until).toISOString() };
    case "until_events":
      return { ignoreCount: ig.count, ...(ig.windowMinutes !== null ? { ignoreWindow: ig.windowMinutes } : {}) };
    case "until_users":
      return { ignoreUserCount: ig.count, ...(ig.windowMinutes !== null ? { ignoreUserWindow: ig.windowMinutes } : {}) };
  }
}

/** Reads stored JSON back into a resolution (anything unexpected → null, never a crash). */
export function parseResolution(v: unknown): Resolution | null {
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  const order = typeof r.releaseOrder === "number" ? r.releaseOrder : null;
  if (r.kind === "now") return { kind: "now" };
  if (r.kind === "in_release" && typeof r.release === "string") return { kind: "in_release", release: r.release, releaseOrder: order };
  if (r.kind === "in_next_release")
    return { kind: "in_next_release", release: typeof r.release === "string" ? r.release : null, releaseOrder: order };
  return null;
}

/** Reads a stored ignore condition back (anything unexpected → null). */
export function parseIgnoreCondition(v: unknown): IgnoreCondition | null {
  if (typeof v !== "object" || v === null) return null;
  const r = v as Record<string, unknown>;
  const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : null);
  if (r.kind === "forever") return { kind: "forever" };
  if (r.kind === "until_time" && num(r.until) !== null) return { kind: "until_time", until: num(r.until) as number };
  if ((r.kind === "until_events" || r.kind === "until_users") && num(r.count) !== null) {
    return {
      kind: r.kind,
      count: num(r.count) as number,
      windowMinutes: num(r.windowMinutes),
      baseline: num(r.baseline) ?? 0,
      since: num(r.since) ?? 0,
    };
  }
  return null;
}

/** Convenience for storage: the state fields that go into JSON columns. */
export function lifecycleJson(state: Pick<IssueState, "resolution" | "ignore">): { resolution: string | null; ignore: string | null } {
  return {
    resolution: state.resolution ? JSON.stringify(state.resolution) : null,
    ignore: state.ignore ? JSON.stringify(state.ignore) : null,
  };
}
