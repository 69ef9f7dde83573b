"use client";
/** Leave a comment (markdown subset); Ctrl/⌘+Enter sends. The activity list refreshes after. */
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import type { TriageActions } from "./triage/actions";

export function CommentForm({ org, issueId, comment }: { org: string; issueId: number; comment: TriageActions["commentOnIssue"] }) {
  const router = useRouter();
  const [text, setText] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  const send = () =>
    start(async () => {
      const res = await comment(org, issueId, text);
      if (!res.ok) {
        setError(res.message);
        return;
      }
      setText("");
      setError(null);
      router.refresh();
    });
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label htmlFor="comment-text" className="sr-only">
        Comment
      </label>
      <textarea
        id="comment-text"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && (e.metaKey || e.ctrlKey)) {
            e.preventDefault();
            send();
          }
        }}
        rows={3}
        maxLength={10_000}
        placeholder="Add a comment — **bold**, *italic*, `code`, links"
        aria-invalid={error ? true : undefined}
        className="input h-auto min-h-[72px] py-2 leading-[1.45]"
      />
      <div className="flex items-center gap-3">
        <button type="submit" className="btn btn-sm btn-primary" disabled={pending || text.trim() === ""}>
          {pending ? "Sending…" : "Comment"}
        </button>
        <span className="text-[12px] text-fg-dim">Ctrl+Enter to send</span>
        {error ? (
          <span role="alert" className="text-[12.5px] text-danger">
            {error}
          </span>
        ) : null}
      </div>
    </form>
  );
}
