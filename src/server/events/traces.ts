/**
 * The spans and logs of the trace an error event belongs to, for the issue page. Authorization is
 * the issue's: whoever may read the issue may read its trace, within the issue's own project.
 */
import { type LogRecord, type WaterfallRow, waterfall } from "../../core/traces";
import type { Db } from "../../storage/db";
import { readTrace } from "../../storage/events/traces";
import type { Viewer } from "../types";

export interface TraceView {
  traceId: string;
  rows: WaterfallRow[];
  /** epoch ms of the first span's start and the last span's end */
  start: number;
  end: number;
  logs: Array<LogRecord & { key: string }>;
  /** more spans or logs exist than are shown */
  truncated: boolean;
}

export interface TraceServices {
  /** The trace's spans (as a waterfall) and logs; null when the id is not a trace id or nothing was kept. */
  forIssue(viewer: Viewer, orgSlug: string, issueId: number, traceId: string): Promise<TraceView | null>;
}

export interface TraceServiceDeps {
  db: Db;
  requireScope(viewer: Viewer, scope: string): void;
  /** The issue's project id, after checking the viewer may read the issue (throws not_found). */
  issueProject(viewer: Viewer, orgSlug: string, issueId: number): Promise<number>;
}

export function createTraceServices(deps: TraceServiceDeps): TraceServices {
  return {
    async forIssue(viewer, orgSlug, issueId, traceId) {
      deps.requireScope(viewer, "event:read");
      const projectId = await deps.issueProject(viewer, orgSlug, issueId);
      const id = traceId.replace(/-/g, "").toLowerCase();
      if (!/^[0-9a-f]{32}$/.test(id)) return null;
      const data = await readTrace(deps.db, projectId, id);
      if (data.spans.length === 0 && data.logs.length === 0) return null;
      const { rows, start, end } = waterfall(data.spans);
      return {
        traceId: id,
        rows,
        start,
        end,
        logs: data.logs.map(({ id: rowId, ...l }) => ({ ...l, key: String(rowId) })),
        truncated: data.truncated,
      };
    },
  };
}
