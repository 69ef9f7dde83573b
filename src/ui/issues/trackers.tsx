"use client";
/**
 * The issue page's tracker panel (issue 30): "Create issue" links to the project's GitHub, GitLab
 * or Jira, prefilled (they open the tracker; Errata sends nothing), and the linked tracker issue
 * with "Remove", or a field to link one. Members and up link; viewers see the link only.
 */
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { IssueTrackers } from "@/server/issues/trackers";
import type { ActionResult } from "./triage/actions";

export interface TrackerActions {
  link(org: string, issueId: number, url: string): Promise<ActionResult<{ url: string; label: string }>>;
  unlink(org: string, issueId: number): Promise<ActionResult<null>>;
}

export function IssueTrackersPanel({
  org,
  issueId,
  data,
  settingsHref,
  actions,
}: {
  org: string;
  issueId: number;
  data: IssueTrackers;
  settingsHref: string | null;
  actions: TrackerActions;
}) {
  const router = useRouter();
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const run = (fn: () => Promise<ActionResult<unknown>>, after?: () => void) =>
    start(async () => {
      const res = await fn();
      if (!res.ok) {
        setError(res.message);
        return;
      }
      setError(null);
      after?.();
      router.refresh();
    });
  return (
    <section aria-labelledby="trackers-title" data-testid="issue-trackers">
      <h2 id="trackers-title" className="section-title mb-2">
        Issue tracker
      </h2>
      {data.createLinks.length > 0 ? (
        <p className="mb-2 flex flex-wrap items-center gap-1.5 text-[12.5px]">
          <span className="text-fg-muted">Create issue in</span>
          {data.createLinks.map((l) => (
            <a
              key={l.kind}
              href={l.url}
              target="_blank"
              rel="noopener noreferrer"
              className="btn btn-sm"
              data-tracker={l.kind}
              aria-label={`Create issue in ${l.label} (opens a new tab)`}
            >
              {l.label} ↗
            </a>
          ))}
        </p>
      ) : (
        <p className="mb-2 text-[12.5px] text-fg-muted">
          No tracker set for this project.{" "}
          {settingsHref ? (
            <a href={settingsHref} className="underline hover:text-fg">
              Set GitHub, GitLab or Jira
            </a>
          ) : null}
        </p>
      )}
      {data.link ? (
        <p className="flex min-w-0 flex-wrap items-center gap-2 text-[12.5px]" data-testid="linked-issue">
          <span className="text-fg-muted">Linked:</span>
          <a
            href={data.link.url}
            target="_blank"
            rel="noopener noreferrer"
            className="min-w-0 truncate font-medium underline"
            title={data.link.url}
          >
            {data.link.label}
          </a>
          {data.canLink ? (
            <button
              type="button"
              className="btn btn-sm btn-ghost text-fg-muted"
              disabled={pending}
              onClick={() => run(() => actions.unlink(org, issueId))}
              aria-label="Remove the linked issue"
            >
              Remove
            </button>
          ) : null}
        </p>
      ) : data.canLink ? (
        <form
          className="flex flex-wrap items-center gap-1.5"
          onSubmit={(e) => {
            e.preventDefault();
            run(
              () => actions.link(org, issueId, url),
              () => setUrl(""),
            );
          }}
        >
          <label htmlFor="tracker-link" className="sr-only">
            Link an existing issue (URL)
          </label>
          <input
            id="tracker-link"
            type="url"
            inputMode="url"
            className="input min-w-0 flex-1 text-[12.5px]"
            placeholder="https://github.com/acme/shop/issues/12"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            maxLength={2000}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? "tracker-link-error" : undefined}
          />
          <button type="submit" className="btn btn-sm" disabled={pending || url.trim() === ""}>
            Link issue
          </button>
        </form>
      ) : null}
      {error ? (
        <p id="tracker-link-error" role="alert" className="mt-1 text-[12.5px] text-danger">
          {error}
        </p>
      ) : null}
    </section>
  );
}
