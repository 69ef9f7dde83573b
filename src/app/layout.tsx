import type { Metadata, Viewport } from "next";
import { headers } from "next/headers";
import type { ReactNode } from "react";
import { nonceFromPolicy } from "@/core/security/headers";
import { THEME_BOOT_SCRIPT } from "@/ui/shell/theme-script";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Errata", template: "%s · Errata" },
  description: "Self-hosted error tracking.",
};

export const viewport: Viewport = {
  colorScheme: "light dark",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The per-request script nonce (src/server/http/security-headers.ts). Reading the request also
  // keeps every page dynamic: a prerendered page's scripts would carry no nonce and be blocked.
  const nonce = nonceFromPolicy((await headers()).get("content-security-policy"));
  return (
    <html lang="en" suppressHydrationWarning>
      <head>
        {/* biome-ignore lint/security/noDangerouslySetInnerHtml: constant theme boot script of our own, set before paint to avoid a flash. */}
        <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT_SCRIPT }} />
      </head>
      <body className="bg-bg text-fg">{children}</body>
    </html>
  );
}
