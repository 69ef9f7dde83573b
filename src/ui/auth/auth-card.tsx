import type { ReactNode } from "react";
import { Wordmark } from "../kit/wordmark";

/** The calm one-column frame of the public pages (setup, sign in). */
export function AuthCard({ title, lead, children }: { title: string; lead?: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen flex-col items-center px-4 pt-[12vh] pb-12">
      <div className="w-full max-w-[380px]">
        <div className="mb-8">
          <Wordmark />
        </div>
        <h1 className="text-lg font-semibold tracking-tight">{title}</h1>
        {lead ? <p className="mt-1 text-fg-muted">{lead}</p> : null}
        <div className="mt-6">{children}</div>
      </div>
    </main>
  );
}
