/**
 * One issue update per issue per batch. The first event of an issue in a digest transaction is
 * counted with `recordIssueEvent` (UPDATE … RETURNING: the lifecycle state the lifecycle step
 * needs). When that state needs no lifecycle work for this batch — unresolved and not due, which
 * does not depend on counters and cannot change under the transaction (the row is ours until the
 * commit: SQLite's one writer, PostgreSQL's row lock) — the issue's further events only add to
 * counters kept here, written with one `recordIssueEvents` before the transaction ends.
 */
import { DEFAULT_LIFECYCLE, eventNeedsWork, type IssueState, type LifecycleConfig } from "../core/issue-state/index";
import type { Tx } from "../storage/dialect";
import { type IssueEventsUpdate, type IssueEventUpdate, recordIssueEvents } from "../storage/issues/issues";

export class IssueCounters {
  /** issues whose events need no lifecycle step for the rest of this transaction */
  private readonly quiet = new Set<number>();
  private readonly pending = new Map<number, IssueEventsUpdate>();

  constructor(
    private readonly now: number,
    private readonly cfg: LifecycleConfig = DEFAULT_LIFECYCLE,
  ) {}

  /** Whether this issue's next event can be deferred (its state is known to need nothing). */
  canDefer(issueId: number): boolean {
    return this.quiet.has(issueId);
  }

  /** After an event was counted one by one: remember whether later ones can be deferred. */
  counted(issueId: number, state: IssueState | undefined): void {
    if (state && !eventNeedsWork(state, this.now, this.cfg)) this.quiet.add(issueId);
    else this.quiet.delete(issueId);
  }

  defer(issueId: number, u: IssueEventUpdate): void {
    const p = this.pending.get(issueId);
    if (!p) {
      this.pending.set(issueId, {
        count: 1,
        newUsers: u.newUser ? 1 : 0,
        minSeen: u.seenAt,
        maxSeen: u.seenAt,
        level: u.level,
        lastEventId: u.eventId,
        firstEventId: u.eventId,
        firstRelease: u.release,
        lastRelease: u.release,
        lastReleaseSeen: u.release !== null ? u.seenAt : null,
      });
      return;
    }
    p.count += 1;
    if (u.newUser) p.newUsers += 1;
    p.minSeen = Math.min(p.minSeen, u.seenAt);
    // The newest event is the issue's last one (as recordIssueEvent decides); a tie goes to the later.
    if (u.seenAt >= p.maxSeen) {
      p.lastEventId = u.eventId;
      p.level = u.level;
    }
    p.maxSeen = Math.max(p.maxSeen, u.seenAt);
    if (u.release !== null) {
      p.firstRelease ??= u.release;
      // The newest event with a release names it, as recordIssueEvent decides; a tie goes to the later.
      if (p.lastReleaseSeen === null || u.seenAt >= p.lastReleaseSeen) {
        p.lastRelease = u.release;
        p.lastReleaseSeen = u.seenAt;
      }
    }
  }

  /** Forgets an issue (deleted in this transaction): nothing of it is written. */
  forget(issueId: number): void {
    this.quiet.delete(issueId);
    this.pending.delete(issueId);
  }

  /** Writes every deferred count; call before the transaction commits. */
  async flush(tx: Tx): Promise<void> {
    for (const [issueId, u] of this.pending) await recordIssueEvents(tx, issueId, u);
    this.pending.clear();
  }
}
