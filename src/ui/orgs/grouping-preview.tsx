"use client";
/**
 * "Preview": regroups the project's latest events with the rules currently typed in the grouping
 * rules form (read from its textareas, not saved) and shows how many issues they would make and
 * which current issues would merge or split.
 */
import Link from "next/link";
import { useState } from "react";
import type { GroupingPreview as Preview } from "@/core/grouping/preview";
import { countOf } from "../kit/format";

type Result = { ok: true; preview: Preview } | { ok: false; message: string; fields: Record<string, string> };
export type PreviewAction = (
  org: string,
  project: string,
  draft: { fingerprintingRules: string; groupingEnhancements: string },
) => Promise<Result>;

const value = (id: string) => (document.getElementById(id) as HTMLTextAreaElement | null)?.value ?? "";

export function GroupingPreview({ org, project, action }: { org: string; project: string; action: PreviewAction }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Result | null>(null);
  const issue = (id: number) => (
    <Link key={id} href={`/${encodeURIComponent(org)}/issues/${id}`} className="link tabular">
      #{id}
    </Link>
  );
  return (
    <div className="mt-3" data-testid="grouping-preview">
      <button
        type="button"
        className="btn btn-sm"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          setResult(
            await action(org, project, {
              fingerprintingRules: value("fingerprintingRules"),
              groupingEnhancements: value("groupingEnhancements"),
            }),
          );
          setBusy(false);
        }}
      >
        {busy ? "Regrouping…" : "Preview on the last 1,000 events"}
      </button>
      <div aria-live="polite" className="mt-2 text-[12.5px]">
        {result === null ? null : result.ok ? (
          <div data-testid="grouping-preview-result">
            <p>
              {countOf(result.preview.events, "event")}: {countOf(result.preview.currentIssues, "issue")} now,{" "}
              {countOf(result.preview.draftIssues, "issue")} with these rules.
            </p>
            {result.preview.merges.length > 0 ? (
              <ul className="mt-1 list-disc pl-5">
                {result.preview.merges.map((m) => (
                  <li key={m.join("-")}>
                    Would merge{" "}
                    {m.map((id, i) => (
                      <span key={id}>
                        {i > 0 ? ", " : ""}
                        {issue(id)}
                      </span>
                    ))}
                  </li>
                ))}
              </ul>
            ) : null}
            {result.preview.splits.length > 0 ? (
              <ul className="mt-1 list-disc pl-5">
                {result.preview.splits.map((s) => (
                  <li key={s.issueId}>
                    Would split {issue(s.issueId)} into {s.parts}
                  </li>
                ))}
              </ul>
            ) : null}
            {result.preview.merges.length === 0 && result.preview.splits.length === 0 ? (
              <p className="text-fg-dim">No issue would merge or split.</p>
            ) : null}
          </div>
        ) : (
          <div role="alert" className="text-danger">
            <p>{result.message}</p>
            {Object.entries(result.fields).map(([f, m]) => (
              <p key={f}>
                {f === "fingerprintingRules" ? "Fingerprint rules" : f === "groupingEnhancements" ? "Stack trace rules" : f}: {m}
              </p>
            ))}
          </div>
        )}
      </div>
    </div>
  );
}
