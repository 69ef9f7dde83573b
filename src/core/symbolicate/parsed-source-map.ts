/**
 * A parsed source map ready for lookups: `@jridgewell/trace-mapping` (index maps with `sections`
 * flattened), plus the split lines of `sourcesContent` on demand. Built once per map and cached
 * by the digest worker; `cost` is what the cache charges for it.
 */
import { FlattenMap, type TraceMap, traceSegment } from "@jridgewell/trace-mapping";
import { enclosingScope, type FunctionScope, functionScopes } from "./function-scopes";

export interface MapToken {
  sourceIndex: number;
  /** `sources[i]` with `sourceRoot` applied */
  source: string;
  /** 0-based */
  line: number;
  /** 0-based */
  column: number;
  /** the `names` entry on this mapping, if any */
  name: string | null;
}

export interface ParsedSourceMap {
  readonly trace: TraceMap;
  /** estimated bytes retained (decoded mappings + sources), for a cache bounded by bytes */
  readonly cost: number;
  /** greatest-lower-bound lookup on the generated position (0-based line and column) */
  lookup(line: number, column: number): MapToken | null;
  /** lines of `sourcesContent[i]`, or null when the map does not embed that source */
  sourceLines(sourceIndex: number): string[] | null;
  /** `ignoreList` / `x_google_ignoreList`: the bundler marked this source as third-party */
  isIgnored(sourceIndex: number): boolean;
  /**
   * The name of the function enclosing an original position (0-based): a name, null for an
   * anonymous function or top-level code, undefined when the map does not embed the source.
   */
  enclosingFunction(sourceIndex: number, line: number, column: number): string | null | undefined;
}

export class SourceMapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SourceMapError";
  }
}

// A decoded segment array costs far more than its VLQ text; measured ~3x the JSON size on real maps.
const COST_FACTOR = 3;

export function parseSourceMap(text: string): ParsedSourceMap {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SourceMapError("not valid JSON");
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new SourceMapError("not a JSON object");
  const raw = json as { version?: unknown; mappings?: unknown; sections?: unknown };
  if (typeof raw.mappings !== "string" && !Array.isArray(raw.sections)) throw new SourceMapError("neither `mappings` nor `sections`");
  let trace: TraceMap;
  try {
    // FlattenMap handles both plain maps and index maps (`sections`); no map URL: sources stay as written.
    trace = new FlattenMap(json as ConstructorParameters<typeof FlattenMap>[0]);
  } catch (err) {
    throw new SourceMapError(`unreadable (${(err as Error).message})`);
  }
  return wrap(trace, text.length * COST_FACTOR);
}

function wrap(trace: TraceMap, cost: number): ParsedSourceMap {
  const lines = new Map<number, string[] | null>();
  const ignored = new Set<number>(trace.ignoreList ?? []);
  const scopes = new Map<number, { scopes: FunctionScope[]; lineStarts: number[] } | null>();
  const scopesOf = (sourceIndex: number) => {
    if (scopes.has(sourceIndex)) return scopes.get(sourceIndex) ?? null;
    const src = wrapped.sourceLines(sourceIndex);
    let entry: { scopes: FunctionScope[]; lineStarts: number[] } | null = null;
    if (src) {
      const lineStarts: number[] = [];
      let offset = 0;
      for (const l of src) {
        lineStarts.push(offset);
        offset += l.length + 1;
      }
      entry = { scopes: functionScopes(src.join("\n")), lineStarts };
    }
    scopes.set(sourceIndex, entry);
    return entry;
  };
  const wrapped: ParsedSourceMap = {
    trace,
    cost,
    lookup(line, column) {
      if (line < 0 || column < 0) return null;
      let seg: readonly number[] | null;
      try {
        seg = traceSegment(trace, line, column);
      } catch {
        return null;
      }
      if (!seg || seg.length < 4) return null;
      const [, sourceIndex = 0, srcLine = 0, srcCol = 0, nameIndex] = seg;
      return {
        sourceIndex,
        source: trace.resolvedSources[sourceIndex] ?? trace.sources[sourceIndex] ?? "",
        line: srcLine,
        column: srcCol,
        name: nameIndex !== undefined ? (trace.names[nameIndex] ?? null) : null,
      };
    },
    sourceLines(sourceIndex) {
      if (lines.has(sourceIndex)) return lines.get(sourceIndex) ?? null;
      const content = trace.sourcesContent?.[sourceIndex];
      const split = typeof content === "string" ? content.split(/\r?\n/) : null;
      lines.set(sourceIndex, split);
      return split;
    },
    isIgnored(sourceIndex) {
      return ignored.has(sourceIndex);
    },
    enclosingFunction(sourceIndex, line, column) {
      const entry = scopesOf(sourceIndex);
      if (!entry) return undefined;
      const start = entry.lineStarts[line];
      if (start === undefined) return undefined;
      return enclosingScope(entry.scopes, start + column)?.name ?? null;
    },
  };
  return wrapped;
}
