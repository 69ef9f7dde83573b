"use client";

import { digestOf, ErrorView } from "@/ui/shell/error-view";
import { THEME_BOOT_SCRIPT } from "@/ui/shell/theme-script";
import "./globals.css";

/** Replaces the root layout when it fails: its own document, same look. */
export default function GlobalError({ error, retry, reset }: { error: unknown; retry?: () => void; reset?: () => void }) {
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        <title>Something went wrong · Errata</title>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: constant theme boot script of our own. */}
        <script dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="bg-bg text-fg">
        <ErrorView digest={digestOf(error)} error={error} onRetry={() => (retry ?? reset ?? (() => window.location.reload()))()} />
      </body>
    </html>
  );
}
