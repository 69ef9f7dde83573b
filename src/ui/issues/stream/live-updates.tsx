"use client";
/**
 * Live updates for the stream, loaded after the first paint (the EventSource and the pill are a
 * separate chunk: nothing on screen waits for them). See live-pill.tsx.
 */
import { lazy, Suspense, useEffect, useState } from "react";

const LivePill = lazy(() => import("./live-pill"));

export function LiveUpdates(props: { org: string; since: number; project: string; auto?: boolean }) {
  const [on, setOn] = useState(false);
  useEffect(() => {
    const t = setTimeout(() => setOn(true), 300);
    return () => clearTimeout(t);
  }, []);
  return on ? (
    <Suspense fallback={null}>
      <LivePill {...props} />
    </Suspense>
  ) : null;
}
