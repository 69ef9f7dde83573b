/**
 * The `manifest.json` of an artifact bundle (reference §8.4). Both flavours: the Rust sentry-cli
 * (`files/` prefix, lower-case header keys, bundle `debug_id`) and the JS `sentry` CLI (no prefix,
 * `Sourcemap` capitalised, no bundle id). Manifest keys ARE the zip entry names; nothing else
 * about the layout is assumed.
 */
import { normalizeDebugId } from "./debug-id";

export type ArtifactType = "source" | "minified_source" | "source_map" | "indexed_ram_bundle";

const TYPES: ReadonlySet<string> = new Set(["source", "minified_source", "source_map", "indexed_ram_bundle"]);

export interface ManifestFile {
  /** zip entry name (the manifest key) */
  entry: string;
  type: ArtifactType;
  /** `~/path` (any host) or a full URL */
  url: string;
  debugId: string | null;
  /** the `sourcemap` (or legacy `x-sourcemap`) header: the map's URL relative to `url` */
  sourcemap: string | null;
  /** every header, keys lower-cased */
  headers: Record<string, string>;
}

export interface BundleManifest {
  files: ManifestFile[];
  /** the bundle's own id (Rust CLI only), not a file's */
  debugId: string | null;
  org: string | null;
  project: string | null;
  release: string | null;
  dist: string | null;
}

/** A bundle that cannot be used; the message is shown to the uploader as the assemble `detail`. */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BundleError";
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const optString = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export function parseBundleManifest(json: unknown): BundleManifest {
  if (!isObj(json)) throw new BundleError("manifest.json is not a JSON object.");
  const files = json.files;
  if (!isObj(files)) throw new BundleError("manifest.json has no `files` object.");
  const out: ManifestFile[] = [];
  for (const [entry, info] of Object.entries(files)) {
    if (!isObj(info)) throw new BundleError(`manifest.json: entry "${entry}" is not an object.`);
    const type = info.type;
    if (typeof type !== "string" || !TYPES.has(type))
      throw new BundleError(`manifest.json: entry "${entry}" has unknown type ${JSON.stringify(type)}.`);
    const url = typeof info.url === "string" ? info.url : "";
    if (url === "") throw new BundleError(`manifest.json: entry "${entry}" has no url.`);
    const headers: Record<string, string> = {};
    if (isObj(info.headers)) {
      // The JS CLI writes `Sourcemap`; HTTP-style headers compare case-insensitively.
      for (const [k, v] of Object.entries(info.headers)) if (typeof v === "string") headers[k.toLowerCase()] = v;
    }
    out.push({
      entry,
      type: type as ArtifactType,
      url,
      debugId: normalizeDebugId(headers["debug-id"]),
      sourcemap: optString(headers.sourcemap) ?? optString(headers["x-sourcemap"]),
      headers,
    });
  }
  return {
    files: out,
    debugId: normalizeDebugId(json.debug_id),
    org: optString(json.org),
    project: optString(json.project),
    release: optString(json.release),
    dist: optString(json.dist),
  };
}
