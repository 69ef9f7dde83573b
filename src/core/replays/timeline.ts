/**
 * The breadcrumb timeline beside the replay player: what the SDK recorded as it happened — page
 * loads and navigations, clicks (dead and rage clicks marked), inputs, console output, network
 * requests — read from the recording's custom rrweb events, plus the replay's errors. Pure; the
 * player calls it in the browser as segments arrive.
 */
import { breadcrumbOf, eventTime, RRWEB, slowClickKind } from "./summary";

export type TimelineKind = "navigation" | "click" | "dead" | "rage" | "input" | "console" | "network" | "error";

export interface TimelineItem {
  /** epoch ms */
  at: number;
  kind: TimelineKind;
  label: string;
  detail?: string;
  /** console level, or "error" for a failed request */
  level?: string;
  /** a navigation read from a performance span (dropped when its breadcrumb is there too) */
  fromSpan?: boolean;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown, max = 300): string | undefined => (typeof v === "string" && v !== "" ? v.slice(0, max) : undefined);

const NETWORK_OPS = new Set(["resource.fetch", "resource.xhr"]);
// `navigation.navigate` (the first page load) is the recording's Meta event already: not repeated.
const NAVIGATION_OPS = new Set(["navigation.push", "navigation.reload", "navigation.back_forward"]);
/** A history change is both a breadcrumb and a span: the span goes when a breadcrumb is this close. */
const SAME_NAVIGATION_MS = 1000;

function fromBreadcrumb(c: Obj, at: number): TimelineItem | undefined {
  const category = str(c.category) ?? "";
  const data = obj(c.data);
  const message = str(c.message);
  switch (category) {
    case "ui.click":
      return { at, kind: "click", label: "Click", detail: message };
    case "ui.slowClickDetected": {
      const kind = slowClickKind(c);
      if (!kind) return undefined;
      return { at, kind, label: kind === "rage" ? "Rage click" : "Dead click", detail: message };
    }
    case "ui.input":
      return { at, kind: "input", label: "Input", detail: message };
    case "navigation":
      return { at, kind: "navigation", label: "Navigation", detail: str(data.to) ?? message };
    case "console": {
      // The SDK's own console output about the replay is noise here.
      if (data.logger === "replay") return undefined;
      const level = str(c.level) ?? "log";
      return { at, kind: "console", label: `console.${level}`, detail: message, level };
    }
    default:
      return undefined;
  }
}

function fromSpan(p: Obj, fallback: number): TimelineItem | undefined {
  const op = str(p.op) ?? "";
  const at = eventTime(p.startTimestamp) ?? fallback;
  const description = str(p.description, 500);
  if (NAVIGATION_OPS.has(op))
    return { at, kind: "navigation", label: op === "navigation.reload" ? "Reload" : "Navigation", detail: description };
  if (!NETWORK_OPS.has(op)) return undefined;
  const data = obj(p.data);
  const status = typeof data.statusCode === "number" ? data.statusCode : undefined;
  const method = str(data.method) ?? "GET";
  const failed = status !== undefined && status >= 400;
  return {
    at,
    kind: "network",
    label: `${method}${status !== undefined ? ` ${status}` : ""}`,
    detail: description,
    ...(failed ? { level: "error" } : {}),
  };
}

/** The timeline items of some rrweb events (any segments, any order): sorted by time. */
export function timelineOf(events: readonly unknown[]): TimelineItem[] {
  const out: TimelineItem[] = [];
  for (const e of events) {
    const ev = obj(e);
    const at = eventTime(ev.timestamp);
    if (at === null) continue;
    if (ev.type === RRWEB.Meta) {
      const href = str(obj(ev.data).href, 500);
      if (href) out.push({ at, kind: "navigation", label: "Page load", detail: href });
      continue;
    }
    if (ev.type !== RRWEB.Custom) continue;
    const crumb = breadcrumbOf(e);
    if (crumb) {
      const item = fromBreadcrumb(crumb, eventTime(crumb.timestamp) ?? at);
      if (item) out.push(item);
      continue;
    }
    const data = obj(ev.data);
    if (data.tag === "performanceSpan") {
      const item = fromSpan(obj(data.payload), at);
      if (item) out.push(item);
    }
  }
  const crumbNavs = out.filter((i) => i.kind === "navigation" && !i.fromSpan && i.label !== "Page load").map((i) => i.at);
  return out
    .filter((i) => !i.fromSpan || !crumbNavs.some((at) => Math.abs(at - i.at) <= SAME_NAVIGATION_MS))
    .map(({ fromSpan: _span, ...i }) => i)
    .sort((a, b) => a.at - b.at);
}
