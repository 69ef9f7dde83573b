"use client";

import { digestOf, ErrorView } from "@/ui/shell/error-view";

export default function ErrorPage({ error, retry, reset }: { error: unknown; retry?: () => void; reset?: () => void }) {
  return <ErrorView digest={digestOf(error)} error={error} onRetry={() => (retry ?? reset ?? (() => window.location.reload()))()} />;
}
