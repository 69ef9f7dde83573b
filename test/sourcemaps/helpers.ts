/**
 * Shared by the source-map tests: an org with a project and an upload token on a real server,
 * the two upload CLIs, a raw uploader speaking the same chunk/assemble protocol, events in and out.
 */
import { execFile } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { strToU8, zipSync } from "fflate";
import { eventually, ROOT, type TestServer } from "../helpers/server";
import { tempDir } from "../helpers/test-db";
import { CORPUS_DIR } from "../pipeline/corpus";

const execFileP = promisify(execFile);
export const CAPTURES = path.join(CORPUS_DIR, "sdk-captures");
export const BUGSINK = path.join(CORPUS_DIR, "event-samples/bugsink");

export interface Tenant {
  org: string;
  project: string;
  dsn: string;
  token: string;
  /** a token of the same user without an upload scope */
  readOnlyToken: string;
}

export async function createTenant(server: TestServer, org = "acme", project = "web"): Promise<Tenant> {
  const email = `dev-${org}@example.com`;
  await server.cli("user", "create", "--email", email, "--password", "correct horse battery", "--org", org);
  const dsn = await server.cli("project", "create", "--org", org, "--name", project, "--platform", "javascript");
  const token = await server.cli("token", "create", "--email", email, "--scopes", "project:releases,project:read,event:read");
  const readOnlyToken = await server.cli("token", "create", "--email", email, "--scopes", "event:read");
  return { org, project, dsn, token, readOnlyToken };
}

function cliEnv(server: TestServer, t: Tenant): Record<string, string> {
  // Own HOME: neither CLI may read or write the developer's config.
  return {
    PATH: process.env.PATH ?? "",
    HOME: tempDir("sentry-home-"),
    SENTRY_URL: server.url,
    SENTRY_AUTH_TOKEN: t.token,
    SENTRY_ORG: t.org,
    SENTRY_PROJECT: t.project,
  };
}

/** The Rust `sentry-cli` 3.x from @sentry/cli. */
export async function sentryCli(server: TestServer, t: Tenant, ...args: string[]): Promise<string> {
  const { stdout, stderr } = await execFileP(path.join(ROOT, "node_modules/.bin/sentry-cli"), args, {
    env: cliEnv(server, t) as NodeJS.ProcessEnv,
    cwd: ROOT,
    timeout: 60_000,
  });
  return stdout + stderr;
}

/** The JS `sentry` CLI 0.49 (the uploader @sentry/nextjs 11 bundler plugins use). */
export async function sentryJsCli(server: TestServer, t: Tenant, ...args: string[]): Promise<string> {
  const { stdout, stderr } = await execFileP(path.join(ROOT, "node_modules/.bin/sentry"), args, {
    env: cliEnv(server, t) as NodeJS.ProcessEnv,
    cwd: ROOT,
    timeout: 60_000,
  });
  return stdout + stderr;
}

/** A temp dir holding files (name → content). */
export function distDir(files: Record<string, string>): string {
  const dir = tempDir("sm-dist-");
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

export const capture = (name: string) => fs.readFileSync(path.join(CAPTURES, name), "utf8");

/** app.min.js + map, already injected (as sentry-cli would) but with a fresh debug id. */
export function injectedApp(): { debugId: string; js: string; map: string } {
  const debugId = randomUUID();
  const old = "f1a2e460-bef6-5dfd-8555-8a44e6be3b25";
  return {
    debugId,
    js: capture("app.min.js.injected").replaceAll(old, debugId),
    map: capture("app.min.js.map.injected").replaceAll(old, debugId),
  };
}

/** A minimal Sentry event with the §8.5 test-vector frames (positions after injection). */
export function vectorEvent(opts: {
  file: string;
  debugId?: string;
  release?: string;
  lineOffset?: number;
  message?: string;
  type?: string;
}): Record<string, unknown> {
  const line = 3 - (opts.lineOffset ?? 0);
  const frame = (fn: string, colno: number) => ({
    filename: opts.file,
    abs_path: opts.file,
    function: fn,
    lineno: line,
    colno,
    in_app: true,
  });
  return {
    event_id: randomUUID().replace(/-/g, ""),
    platform: "javascript",
    level: "error",
    timestamp: Date.now() / 1000,
    ...(opts.release ? { release: opts.release } : {}),
    exception: {
      values: [
        {
          type: opts.type ?? "Error",
          value: opts.message ?? "boom",
          stacktrace: { frames: [frame("Object.?", 55), frame("b", 51), frame("a", 20)] },
          mechanism: { type: "onerror", handled: false },
        },
      ],
    },
    ...(opts.debugId ? { debug_meta: { images: [{ type: "sourcemap", code_file: opts.file, debug_id: opts.debugId }] } } : {}),
  };
}

/** Sends an event through the legacy store endpoint (the payload as an SDK would post it). */
export async function sendEvent(server: TestServer, dsn: string, event: Record<string, unknown>): Promise<string> {
  const u = new URL(dsn);
  const projectId = u.pathname.replace(/\//g, "");
  const res = await fetch(`${server.url}/api/${projectId}/store/?sentry_version=7&sentry_key=${u.username}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(event),
  });
  if (!res.ok) throw new Error(`store failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

export type StoredEvent = Record<string, unknown> & {
  groupID: string;
  exception: {
    values: Array<{ stacktrace: { frames: Array<Record<string, unknown>> }; raw_stacktrace?: { frames: Array<Record<string, unknown>> } }>;
  };
  errata: { notes: Array<{ type: string; detail: string; path?: string }> };
};

export async function fetchEvent(server: TestServer, t: Tenant, eventId: string): Promise<StoredEvent | undefined> {
  const res = await fetch(`${server.url}/api/0/projects/${t.org}/${t.project}/events/${eventId}/`, {
    headers: { authorization: `Bearer ${t.token}` },
  });
  return res.ok ? ((await res.json()) as StoredEvent) : undefined;
}

/** Waits until the event is stored (and, with `until`, until it satisfies it). */
export async function storedEvent(
  server: TestServer,
  t: Tenant,
  eventId: string,
  until?: (e: StoredEvent) => boolean,
  what = "the stored event",
): Promise<StoredEvent> {
  return eventually(
    async () => {
      const e = await fetchEvent(server, t, eventId);
      return e && (!until || until(e)) ? e : undefined;
    },
    30_000,
    what,
  );
}

export const topFrame = (e: StoredEvent) => e.exception.values[0]?.stacktrace.frames.at(-1) as Record<string, unknown>;

export const sha1 = (b: Uint8Array) => createHash("sha1").update(b).digest("hex");

/** An artifact bundle as sentry-cli builds it: SYSB header, files/ prefix, manifest. */
export function buildBundle(
  files: Array<{ url: string; type: string; content: string; headers?: Record<string, string> }>,
  extra: Record<string, unknown> = {},
): Uint8Array<ArrayBuffer> {
  const entries: Record<string, Uint8Array> = {};
  const manifest: Record<string, unknown> = {};
  for (const f of files) {
    const entry = `files/_/_/${f.url.replace(/^~\//, "")}`;
    entries[entry] = strToU8(f.content);
    manifest[entry] = { type: f.type, url: f.url, headers: f.headers ?? {} };
  }
  entries["manifest.json"] = strToU8(JSON.stringify({ files: manifest, ...extra }));
  const zip = zipSync(entries);
  const out = new Uint8Array(zip.length + 8);
  out.set([0x53, 0x59, 0x53, 0x42, 2, 0, 0, 0]);
  out.set(zip, 8);
  // Offsets stay zip-relative here: the reader must cope with both layouts.
  return out;
}

/** The chunk-upload + assemble protocol, as the CLIs speak it (gzip parts named by sha1). */
export class RawUploader {
  constructor(
    private readonly server: TestServer,
    private readonly t: Tenant,
  ) {}

  headers(): Record<string, string> {
    return { authorization: `Bearer ${this.t.token}` };
  }

  async chunks(parts: Array<{ data: Uint8Array; name?: string; field?: string }>): Promise<Response> {
    const form = new FormData();
    for (const p of parts) {
      const field = p.field ?? "file_gzip";
      const body = field === "file_gzip" ? gzipSync(p.data) : Buffer.from(p.data);
      form.append(field, new Blob([body]), p.name ?? sha1(p.data));
    }
    return fetch(`${this.server.url}/api/0/organizations/${this.t.org}/chunk-upload/`, {
      method: "POST",
      headers: this.headers(),
      body: form,
    });
  }

  async assemble(
    body: Record<string, unknown>,
    path = "artifactbundle/assemble",
  ): Promise<{ state: string; missingChunks: string[]; detail: string | null }> {
    const res = await fetch(`${this.server.url}/api/0/organizations/${this.t.org}/${path}/`, {
      method: "POST",
      headers: { ...this.headers(), "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`assemble: ${res.status} ${await res.text()}`);
    return (await res.json()) as { state: string; missingChunks: string[]; detail: string | null };
  }

  /** The whole flow for one bundle (one chunk): ask, upload what is missing, assemble. */
  async upload(bundle: Uint8Array, extra: Record<string, unknown> = { projects: [this.t.project] }, path?: string) {
    const checksum = sha1(bundle);
    const body = { checksum, chunks: [checksum], ...extra };
    const first = await this.assemble(body, path);
    if (first.state === "not_found") {
      const res = await this.chunks([{ data: bundle }]);
      if (!res.ok) throw new Error(`chunk upload: ${res.status} ${await res.text()}`);
    }
    return { first, final: await this.assemble(body, path) };
  }
}
