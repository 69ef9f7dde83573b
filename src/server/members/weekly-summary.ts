/**
 * A member's own choice about the weekly summary email (issue 30), on the account page: on by
 * default, one switch for every organization. Only the signed-in user changes their own.
 */
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import { setSummaryOptOut, summaryOptedOut } from "../../storage/members/weekly-summary";
import type { Viewer } from "../types";

export interface WeeklySummaryServices {
  /** true when the viewer gets the weekly summary */
  enabled(viewer: Viewer): Promise<boolean>;
  setEnabled(viewer: Viewer, on: boolean): Promise<void>;
  /** whether this installation can send mail at all (SMTP_HOST): without it no summary is sent */
  mailConfigured(): boolean;
}

export function createWeeklySummaryServices(deps: { db: Db; now: () => number; mailConfigured: boolean }): WeeklySummaryServices {
  return {
    mailConfigured: () => deps.mailConfigured,
    async enabled(viewer) {
      return !(await summaryOptedOut(deps.db, viewer.userId));
    },
    async setEnabled(viewer, on) {
      await writeTx(deps.db, (tx) => setSummaryOptOut(tx, viewer.userId, !on, deps.now()));
    },
  };
}
