/**
 * The platforms a project can be created for (Sentry's platform ids) and the SDK guide each one
 * opens. Plain data: imported by the create-project form (client) and the guides (server).
 */

export type GuideId = "nextjs" | "react" | "browser" | "node" | "python" | "other";

export interface PlatformChoice {
  /** stored as the project's platform (Sentry's ids) */
  id: string;
  label: string;
  /** the SDK package it uses */
  sdk: string;
  guide: GuideId;
}

export const PLATFORMS: readonly PlatformChoice[] = [
  { id: "javascript-nextjs", label: "Next.js", sdk: "@sentry/nextjs", guide: "nextjs" },
  { id: "javascript-react", label: "React", sdk: "@sentry/react", guide: "react" },
  { id: "javascript", label: "Browser JavaScript", sdk: "@sentry/browser", guide: "browser" },
  { id: "node", label: "Node.js", sdk: "@sentry/node", guide: "node" },
  { id: "python", label: "Python", sdk: "sentry-sdk", guide: "python" },
  { id: "other", label: "Other", sdk: "any Sentry SDK", guide: "other" },
];

/** The guide for a stored platform id (ids from other tools map by prefix). */
export function guideFor(platform: string): GuideId {
  const exact = PLATFORMS.find((p) => p.id === platform);
  if (exact) return exact.guide;
  if (platform.startsWith("javascript-nextjs")) return "nextjs";
  if (platform.startsWith("javascript-react")) return "react";
  if (platform.startsWith("javascript")) return "browser";
  if (platform.startsWith("node")) return "node";
  if (platform.startsWith("python")) return "python";
  return "other";
}

export function platformLabel(platform: string): string {
  return PLATFORMS.find((p) => p.id === platform)?.label ?? platform;
}
