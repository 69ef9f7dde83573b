/**
 * The shape of the triage Server Actions (src/app/[org]/issues/actions.ts) as client components
 * receive them in props: results, never exceptions, so optimistic updates can roll back.
 */
import type { IssueUpdate } from "@/server/types";

export type ActionResult<T = undefined> = { ok: true; value: T } | { ok: false; code: string; message: string };

export interface TriageActions {
  updateIssues(org: string, ids: number[], update: IssueUpdate): Promise<ActionResult<{ ids: number[] }>>;
  mergeIssues(org: string, ids: number[], primaryId?: number): Promise<ActionResult<{ primaryId: number; mergedIds: number[] }>>;
  deleteIssues(org: string, ids: number[]): Promise<ActionResult<{ deletedIds: number[] }>>;
  commentOnIssue(org: string, issueId: number, text: string): Promise<ActionResult<{ id: number }>>;
}
