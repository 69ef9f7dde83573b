"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import type { ComponentProps } from "react";

/**
 * A link of the top bar, prefetched when the user reaches for it (pointer over it, focus, touch)
 * instead of when it is on screen. Every signed-in page shows the bar's eight sections: Next's
 * viewport prefetch made each page load render all of them on the server at once, which on a
 * two-core server competed with the page's own requests (a replay's first segment waited behind
 * the issues, traces and releases pages' renders). A click still finds the page prefetched when
 * the pointer rested on it for a moment, as it does.
 */
export function IntentLink({ href, onMouseEnter, onFocus, onTouchStart, ...props }: ComponentProps<typeof Link> & { href: string }) {
  const router = useRouter();
  const prefetch = () => router.prefetch(href);
  return (
    <Link
      {...props}
      href={href}
      prefetch={false}
      onMouseEnter={(e) => {
        prefetch();
        onMouseEnter?.(e);
      }}
      onFocus={(e) => {
        prefetch();
        onFocus?.(e);
      }}
      onTouchStart={(e) => {
        prefetch();
        onTouchStart?.(e);
      }}
    />
  );
}
