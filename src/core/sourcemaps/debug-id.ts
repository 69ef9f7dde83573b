/**
 * Debug ids (reference §8.2): how they are written, and where a file carries one. Pure string work.
 */

const UUID_DASHED = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/;

/**
 * The canonical form: lower-case UUID with dashes. Accepts dashed or plain 32-hex (SDKs and tools
 * differ) and braces; anything else is not a JS debug id → null.
 */
export function normalizeDebugId(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const v = value
    .trim()
    .toLowerCase()
    .replace(/^\{|\}$/g, "");
  const m = v.match(UUID_DASHED);
  if (!m) return null;
  return `${m[1]}-${m[2]}-${m[3]}-${m[4]}-${m[5]}`;
}

/** Lines from the end, skipping blank ones, as symbolic's js.rs scans them. */
function* linesFromEnd(text: string, maxLines: number): Generator<string> {
  let end = text.length;
  let seen = 0;
  while (end > 0 && seen < maxLines) {
    const start = text.lastIndexOf("\n", end - 1);
    const line = text.slice(start + 1, end).trim();
    end = Math.max(0, start);
    if (line === "") continue;
    seen += 1;
    yield line;
  }
}

/** `//# debugId=<id>` near the end of a (minified) JS file. */
export function debugIdFromSource(text: string): string | null {
  for (const line of linesFromEnd(text, 20)) {
    const m = line.match(/^\/\/[#@] debugId=(\S+)/);
    if (m) return normalizeDebugId(m[1]);
  }
  return null;
}

/** `//# sourceMappingURL=<url>` (or the old `//@`) near the end of a JS file, query and fragment kept. */
export function sourceMappingUrlFromSource(text: string): string | null {
  for (const line of linesFromEnd(text, 20)) {
    const m = line.match(/^\/\/[#@] sourceMappingURL=(\S+)/);
    if (m) return m[1] ?? null;
  }
  return null;
}

/**
 * The map's own debug id: `debugId` wins over the older `debug_id` (reference §8.2). A regex over
 * the text, not a JSON parse: maps are megabytes, and inside JSON strings quotes are escaped, so
 * the pattern can only match a key.
 */
export function debugIdFromSourceMap(text: string): string | null {
  const re = /"(debugId|debug_id)"\s*:\s*"([^"\\]{32,40})"/g;
  let legacy: string | null = null;
  for (const m of text.matchAll(re)) {
    const id = normalizeDebugId(m[2]);
    if (!id) continue;
    if (m[1] === "debugId") return id;
    legacy ??= id;
  }
  return legacy;
}
