"use client";

import { CopyButton } from "../kit/copy-button";
import { Wordmark } from "../kit/wordmark";
import { isStaleBuildError } from "./stale-build";

/** Errata's own error page: what happened, the request id (the digest in the server log), and ways out. */
export function ErrorView({ digest, onRetry, error }: { digest?: string; onRetry: () => void; error?: unknown }) {
  // A tab still running the previous build (a chunk or a Server Action the new one no longer has).
  const stale = isStaleBuildError(error);
  return (
    <main className="flex min-h-[70vh] flex-col items-center px-4 pt-[14vh]">
      <div className="w-full max-w-[460px]">
        <div className="mb-8">
          <Wordmark />
        </div>
        <h1 className="text-lg font-semibold">Something went wrong</h1>
        <p className="mt-1 text-fg-muted">
          Errata could not show this page. Try again; if it keeps failing, give the request id below to whoever runs this Errata — the
          server log has the details under the same id.
        </p>
        <p className="mt-2 text-fg-muted" data-testid="reload-advice">
          {stale
            ? "Errata was updated since this page was loaded: reloading the page will fetch the new version."
            : "If Errata was updated since you opened this page, reloading the page may help."}
        </p>
        <div className="mt-4 flex items-center gap-2">
          <span className="text-fg-muted">Request id</span>
          <code data-testid="request-id" className="rounded border border-border bg-code px-1.5 py-0.5">
            {digest ?? "unavailable"}
          </code>
          {digest ? <CopyButton text={digest} label="Copy request id" className="btn-ghost" /> : null}
        </div>
        <div className="mt-6 flex flex-wrap gap-2">
          <button type="button" className="btn btn-primary" onClick={onRetry}>
            Try again
          </button>
          <button type="button" className="btn" onClick={() => window.location.reload()}>
            Reload the page
          </button>
          {/* A full page load: the error may have left client state unusable. */}
          <a href="/" className="btn">
            Go to the start page
          </a>
        </div>
      </div>
    </main>
  );
}

export function digestOf(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null) {
    const d = (error as { digest?: unknown }).digest;
    if (typeof d === "string" && d) return d;
  }
  return undefined;
}
