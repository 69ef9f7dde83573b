import type { ActivityItem } from "@/server/types";
import { absoluteTime, countOf } from "../kit/format";
import { Markdown } from "../kit/markdown";
import { TimeAgo } from "../kit/time-ago";

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function duration(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m < 120) return `${m} minutes`;
  if (m < 48 * 60) return `${Math.round(m / 60)} hours`;
  return `${Math.round(m / 1440)} days`;
}

/** A sentence for a lifecycle activity (comments are rendered separately). */
export function describeActivity(a: ActivityItem): string {
  const d = a.data;
  switch (a.kind) {
    case "state_change": {
      const to = obj(d.to);
      const status = str(to.status) ?? "changed";
      if (status === "resolved") {
        const r = obj(d.resolution);
        const rel = str(r.release);
        return r.kind === "in_release" && rel
          ? `resolved it in ${rel}`
          : r.kind === "in_next_release"
            ? `resolved it in the next release${rel ? ` (after ${rel})` : ""}`
            : "resolved it";
      }
      if (status === "ignored") {
        const i = obj(d.ignore);
        if (i.kind === "until_time" && typeof i.until === "number") return `ignored it until ${absoluteTime(i.until)}`;
        if (i.kind === "until_events")
          return `ignored it until ${String(i.count)} more events${i.windowMinutes ? ` within ${duration(Number(i.windowMinutes) * 60_000)}` : ""}`;
        if (i.kind === "until_users")
          return `ignored it until ${String(i.count)} more users${i.windowMinutes ? ` within ${duration(Number(i.windowMinutes) * 60_000)}` : ""}`;
        return "ignored it";
      }
      if (d.reason === "age") return "marked it ongoing (no longer new)";
      return `marked it ${status}`;
    }
    case "regression":
      return `marked it regressed${str(d.release) ? ` (an event from ${str(d.release)})` : " (a new event after it was resolved)"}`;
    case "unignored":
      return d.reason === "time"
        ? "unignored it: the ignore period ended"
        : d.reason === "users"
          ? "unignored it: more users were affected"
          : "unignored it: more events arrived";
    case "assigned": {
      const who = obj(d.assignee);
      if (!(str(who.name) || str(who.email))) return "unassigned it";
      const to = `assigned it to ${str(who.name) || str(who.email)}`;
      // Auto-assignment says what decided (src/pipeline/ownership/assign-owner.ts).
      if (str(d.ownershipRule)) return `${to}, by ownership rule ${str(d.ownershipRule)}`;
      const commit = obj(d.suspectCommit);
      if (str(commit.id))
        return `${to}, author of suspect commit ${String(commit.id).slice(0, 12)}${str(commit.file) ? ` (${str(commit.file)})` : ""}`;
      return to;
    }
    case "merge": {
      const merged = Array.isArray(d.merged) ? d.merged.map((m) => str(obj(m).title) ?? "an issue") : [];
      return `merged ${countOf(merged.length, "issue")} into this one${merged.length ? `: ${merged.slice(0, 3).join("; ")}` : ""}`;
    }
    case "first_seen_in_release":
      // Written for every new issue; events without a release said "in release ?".
      return str(d.release) ? `first seen in release ${str(d.release)}` : "first seen";
    case "unmerge": {
      const n = typeof d.events === "number" ? d.events : 0;
      const hash = typeof d.hash === "string" ? d.hash.slice(0, 12) : "a hash";
      return `split grouping hash ${hash} off into a new issue (${countOf(n, "event")})`;
    }
    default:
      return a.kind;
  }
}

/** Activity, newest first: comments (safe markdown) and lifecycle changes. */
export function ActivityLog({ items, now }: { items: ActivityItem[]; now: number }) {
  if (items.length === 0) return <p className="text-fg-dim">No activity yet. Comments and status changes appear here.</p>;
  return (
    <ol className="flex flex-col gap-2.5" aria-label="Activity">
      {items.map((a) => {
        const actor = a.actor ? a.actor.name || a.actor.email || "Someone" : "Errata";
        if (a.kind === "comment") {
          return (
            <li key={a.id} className="rounded-md border border-border">
              <div className="flex items-baseline gap-2 border-b border-border bg-subtle px-3 py-1 text-[12px]">
                <span className="font-medium">{actor}</span>
                <span className="text-fg-dim">commented</span>
                <TimeAgo ms={a.createdAt} now={now} className="ml-auto text-fg-dim" />
              </div>
              <Markdown text={typeof a.data.text === "string" ? a.data.text : ""} className="px-3 py-2" />
            </li>
          );
        }
        return (
          <li key={a.id} className="flex items-baseline gap-2 px-1 text-[12.5px]">
            <span className="font-medium">{actor}</span>
            <span className="text-fg-muted">{describeActivity(a)}</span>
            <TimeAgo ms={a.createdAt} now={now} className="ml-auto shrink-0 text-[12px] text-fg-dim" />
          </li>
        );
      })}
    </ol>
  );
}
