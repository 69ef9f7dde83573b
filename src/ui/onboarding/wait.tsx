"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";

export interface FirstIssue {
  id: number;
  shortId: string;
  title: string;
  level: string;
}

const POLL_MS = 2000;

/**
 * Waits live for the project's first event (polls a tiny route every 2 s while the tab is
 * visible), then says so calmly with a link to its issue. Polling errors are retried quietly.
 */
export function OnboardingWait({ statusUrl, orgPath, initial }: { statusUrl: string; orgPath: string; initial: FirstIssue | null }) {
  const [issue, setIssue] = useState<FirstIssue | null>(initial);
  const [waitedLong, setWaitedLong] = useState(false);
  const router = useRouter();

  useEffect(() => {
    if (issue) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const started = Date.now();
    const tick = async () => {
      if (stopped) return;
      if (document.visibilityState === "visible") {
        try {
          const res = await fetch(statusUrl, { cache: "no-store", headers: { accept: "application/json" } });
          if (res.ok) {
            const body = (await res.json()) as { issue?: FirstIssue | null };
            if (body.issue && !stopped) {
              setIssue(body.issue);
              // The server parts of the page (the steps) catch up too.
              router.refresh();
              return;
            }
          }
        } catch {
          // offline or restarting: the next tick tries again
        }
      }
      if (Date.now() - started > 90_000) setWaitedLong(true);
      timer = setTimeout(tick, POLL_MS);
    };
    timer = setTimeout(tick, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [issue, statusUrl, router]);

  if (issue) {
    return (
      <div role="status" className="flex flex-col gap-3 sm:flex-row sm:items-start" data-testid="first-event">
        <span className="flex size-9 shrink-0 items-center justify-center rounded-full border border-border-strong" aria-hidden="true">
          <svg
            width="18"
            height="18"
            viewBox="0 0 18 18"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.8"
            strokeLinecap="round"
            strokeLinejoin="round"
          >
            <path d="M4 9.5l3.2 3L14 5.5" />
          </svg>
        </span>
        <div className="min-w-0">
          <h2 className="text-[15px] font-semibold">Your first event arrived</h2>
          <p className="mt-0.5 text-fg-muted">Errata is receiving errors from this project. This is the issue it opened:</p>
          <Link
            href={`${orgPath}/issues/${issue.id}`}
            className="mt-3 flex min-w-0 items-center gap-2 rounded-md border border-border px-3 py-2 hover:bg-hover"
          >
            <span className="shrink-0 font-mono text-[12px] whitespace-nowrap text-fg-dim">{issue.shortId}</span>
            <span className="truncate font-semibold">{issue.title}</span>
          </Link>
          <div className="mt-4 flex flex-wrap gap-2">
            <Link href={`${orgPath}/issues/${issue.id}`} className="btn btn-primary">
              Open the issue
            </Link>
            <Link href={`${orgPath}/issues`} className="btn">
              Go to all issues
            </Link>
          </div>
        </div>
      </div>
    );
  }
  return (
    <div role="status" data-testid="waiting">
      <div className="flex items-center gap-2">
        <span className="spinner text-fg-dim" aria-hidden="true" />
        <h2 className="text-[15px] font-semibold">Waiting for the first event…</h2>
      </div>
      <p className="mt-1 max-w-prose text-fg-muted">
        Run your app with the SDK set up and make it throw. This page notices the event by itself within a few seconds; there is no need to
        reload.
      </p>
      {waitedLong ? (
        <p className="mt-2 max-w-prose text-[12.5px] text-fg-muted">
          Still nothing? Check that the DSN is the one above and that the app can reach Errata at that address (the SDK logs failures with{" "}
          <code>debug: true</code>).
        </p>
      ) : null}
    </div>
  );
}
