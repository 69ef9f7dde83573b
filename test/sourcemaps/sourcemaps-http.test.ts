/**
 * Source maps end to end over HTTP against the real server, on both databases: uploads by the real
 * `sentry-cli` 3.8 and the JS `sentry` CLI 0.49, the bugsink corpus bundles and events, upload
 * first / events first (background re-symbolication, no issue split), the legacy release-file
 * flow, and the upload protocol's refusals.
 */
import fs from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServer, type TestServer } from "../helpers/server";
import { dialects } from "../helpers/test-db";
import {
  BUGSINK,
  buildBundle,
  capture,
  createTenant,
  distDir,
  injectedApp,
  RawUploader,
  type StoredEvent,
  sendEvent,
  sentryCli,
  sentryJsCli,
  storedEvent,
  type Tenant,
  topFrame,
  vectorEvent,
} from "./helpers";

const MiB = 1024 * 1024;
const readable = (e: StoredEvent) => topFrame(e).filename === "src/app.js";

describe.each(await dialects())("source maps over HTTP on %s", (dialect) => {
  let server: TestServer;
  let t: Tenant;
  let raw: RawUploader;

  beforeAll(async () => {
    // Small limits so the refusals can be shown with small bodies.
    server = await startServer({
      dialect,
      env: { SOURCEMAP_MAX_REQUEST_SIZE: String(2 * MiB), SOURCEMAP_MAX_BUNDLE_SIZE: String(1 * MiB) },
    });
    t = await createTenant(server);
    raw = new RawUploader(server, t);
  });
  afterAll(async () => server?.stop());

  test("org details and chunk-upload options as both CLIs expect them", async () => {
    const auth = { authorization: `Bearer ${t.token}` };
    const org = (await (await fetch(`${server.url}/api/0/organizations/${t.org}/`, { headers: auth })).json()) as Record<string, unknown>;
    // Over plain http the region is empty: every client stays on the URL it was given (src/server/sentry-api/shapes/member.ts).
    expect(org).toMatchObject({ slug: "acme", links: { regionUrl: server.url, organizationUrl: server.url } });
    const res = await fetch(`${server.url}/api/0/organizations/${t.org}/chunk-upload/`, { headers: auth });
    expect(await res.json()).toEqual({
      url: `${server.url}/api/0/organizations/acme/chunk-upload/`,
      chunkSize: 8 * MiB,
      chunksPerRequest: 64,
      maxFileSize: 1 * MiB,
      maxRequestSize: 2 * MiB,
      concurrency: 2,
      hashAlgorithm: "sha1",
      compression: ["gzip"],
      accept: expect.arrayContaining(["artifact_bundles", "artifact_bundles_v2", "release_files"]),
    });
    const noScope = await fetch(`${server.url}/api/0/organizations/${t.org}/chunk-upload/`, {
      headers: { authorization: `Bearer ${t.readOnlyToken}` },
    });
    expect(noScope.status).toBe(403);
    const otherOrg = await fetch(`${server.url}/api/0/organizations/globex/chunk-upload/`, { headers: auth });
    expect(otherOrg.status).toBe(404);
    expect((await fetch(`${server.url}/api/0/organizations/${t.org}/chunk-upload/`)).status).toBe(401);
  });

  test("sentry-cli 3.8: inject + upload, then an event of that build reads as the original source", async () => {
    const dir = distDir({ "app.min.js": capture("app.min.js.orig"), "app.min.js.map": capture("app.min.js.map.orig") });
    expect(await sentryCli(server, t, "sourcemaps", "inject", dir)).toContain("f1a2e460-bef6-5dfd-8555-8a44e6be3b25");
    const out = await sentryCli(server, t, "sourcemaps", "upload", dir);
    expect(out).toContain("Uploaded files to Sentry");
    expect(out).not.toMatch(/error/i);

    const file = "http://localhost:8080/dist/app.min.js";
    const id = await sendEvent(server, t.dsn, vectorEvent({ file, debugId: "F1A2E460-BEF6-5DFD-8555-8A44E6BE3B25" }));
    const e = await storedEvent(server, t, id);
    const frames = e.exception.values[0]?.stacktrace.frames ?? [];
    // Reference §8.5 test vector, through the whole pipeline.
    expect(frames.map((f) => [f.function, f.filename, f.lineno, f.colno])).toEqual([
      ["Object.?", "src/app.js", 7, 1],
      ["caller", "src/app.js", 5, 3],
      ["thrower", "src/app.js", 2, 9],
    ]);
    expect(topFrame(e)).toMatchObject({
      context_line: '  throw new Error("boom");',
      abs_path: "http://localhost:8080/src/app.js",
      in_app: true,
    });
    expect(e.exception.values[0]?.raw_stacktrace?.frames.map((f) => [f.function, f.lineno, f.colno, f.filename])).toEqual([
      ["Object.?", 3, 55, file],
      ["b", 3, 51, file],
      ["a", 3, 20, file],
    ]);
    expect(e.errata.notes.filter((n) => n.type === "sourcemap")).toEqual([]);

    // Uploading the same build again is a no-op the CLI accepts.
    expect(await sentryCli(server, t, "sourcemaps", "upload", dir)).toContain("File processing complete");
  });

  test("the JS sentry CLI 0.49 injects and uploads; its events read as the original source", async () => {
    const dir = distDir({ "static/app.min.js": capture("app.min.js.orig"), "static/app.min.js.map": capture("app.min.js.map.orig") });
    await sentryJsCli(server, t, "sourcemap", "upload", dir);
    const injected = fs.readFileSync(path.join(dir, "static/app.min.js"), "utf8");
    const debugId = injected.match(/\/\/# debugId=(\S+)/)?.[1] as string;
    expect(debugId).toMatch(/^[0-9a-f-]{36}$/);
    // The JS CLI prepends its snippet on line 1: the original line 1 is now line 2.
    const file = "https://app.example.com/static/app.min.js";
    const id = await sendEvent(server, t.dsn, vectorEvent({ file, debugId, lineOffset: 1 }));
    const e = await storedEvent(server, t, id);
    expect(topFrame(e)).toMatchObject({
      filename: "src/app.js",
      function: "thrower",
      lineno: 2,
      colno: 9,
      context_line: '  throw new Error("boom");',
    });
  });

  test("the bugsink uglifyjs events resolve with their artifact bundles", async () => {
    for (const zip of ["51a5a327666cf1d11e23adfd55c3becad27ae769.zip", "fc8564966f3dff67e1d59a984f97e0d6beb6debb.zip"]) {
      const { final } = await raw.upload(new Uint8Array(fs.readFileSync(path.join(BUGSINK, "artifact_bundles", zip))));
      expect(final).toEqual({ state: "ok", missingChunks: [], detail: null });
    }
    const expected: Record<string, { file: string; lines: number[] }> = {
      "uglifyjs-minified-sourcemaps-in-bundle.json": { file: "captureException.js", lines: [15, 11, 7] },
      "uglifyjs-minified-sourcemaps-in-bundle-multi-file.json": { file: "captureException.js", lines: [10, 6, 2] },
    };
    for (const [name, want] of Object.entries(expected)) {
      const event = JSON.parse(fs.readFileSync(path.join(BUGSINK, name), "utf8")) as Record<string, unknown>;
      event.timestamp = Date.now() / 1000;
      const id = await sendEvent(server, t.dsn, event);
      const e = await storedEvent(server, t, id);
      const frames = e.exception.values[0]?.stacktrace.frames ?? [];
      // The inline onclick handler in index.html has no map and stays as it was.
      expect(frames[0]).toMatchObject({ function: "onclick", lineno: 1 });
      expect(frames.slice(1).map((f) => [f.filename, f.function, f.lineno])).toEqual([
        [want.file, "captureException", want.lines[0]],
        [want.file, "foo", want.lines[1]],
        [want.file, "bar", want.lines[2]],
      ]);
      expect(topFrame(e).context_line).toBe('    Sentry.captureException(new Error("Sentry Test Error"));');
    }
  });

  test("events first, maps later: the stored event becomes readable and its issue does not split", async () => {
    // Its own exception type: grouping by stack trace would otherwise join the readable events of
    // the same source uploaded by the tests above.
    const app = injectedApp();
    const file = "https://late.example.com/app.min.js";
    const firstId = await sendEvent(server, t.dsn, vectorEvent({ file, debugId: app.debugId, message: "late maps", type: "LateError" }));
    const first = await storedEvent(server, t, firstId);
    expect(topFrame(first)).toMatchObject({
      function: "a",
      lineno: 3,
      data: { sourcemap_error: "missing_sourcemap", debug_id: app.debugId },
    });
    const note = first.errata.notes.find((n) => n.type === "sourcemap");
    expect(note?.detail).toContain(app.debugId);
    expect(note?.detail).toContain(file);

    // The real CLI, with ids already injected (it keeps them).
    await sentryCli(server, t, "sourcemaps", "upload", distDir({ "app.min.js": app.js, "app.min.js.map": app.map }));
    const rewritten = await storedEvent(server, t, firstId, readable, "the re-symbolicated event");
    expect(topFrame(rewritten)).toMatchObject({ function: "thrower", lineno: 2, context_line: '  throw new Error("boom");' });
    expect(rewritten.errata.notes.filter((n) => n.type === "sourcemap")).toEqual([]);
    expect(rewritten.groupID).toBe(first.groupID);

    const laterId = await sendEvent(server, t.dsn, vectorEvent({ file, debugId: app.debugId, message: "late maps", type: "LateError" }));
    const later = await storedEvent(server, t, laterId);
    expect(readable(later)).toBe(true);
    expect(later.groupID).toBe(first.groupID);
  });

  test("legacy release files: sentry-cli releases new, files by ~/ URL, a release bundle", async () => {
    const version = "web@2.0.0";
    expect(await sentryCli(server, t, "releases", "new", version)).toContain(version);
    const upload = async (name: string, content: string, dist?: string) => {
      const form = new FormData();
      form.append("file", new Blob([content]), path.basename(name));
      form.append("name", name);
      if (dist) form.append("dist", dist);
      form.append("header", "Content-Type:application/javascript");
      return fetch(`${server.url}/api/0/projects/${t.org}/${t.project}/releases/${encodeURIComponent(version)}/files/`, {
        method: "POST",
        headers: { authorization: `Bearer ${t.token}` },
        body: form,
      });
    };
    const js = await upload("~/static/app.min.js", capture("app.min.js.orig"));
    expect(js.status).toBe(201);
    expect(await js.json()).toMatchObject({ name: "~/static/app.min.js", size: capture("app.min.js.orig").length });
    expect((await upload("~/static/app.min.js.map", capture("app.min.js.map.orig"))).status).toBe(201);
    expect((await upload("~/static/app.min.js", "again")).status).toBe(409);

    // Any host matches `~/`; the map is found through the file's sourceMappingURL.
    const id = await sendEvent(
      server,
      t.dsn,
      vectorEvent({ file: "https://cdn.example.org/static/app.min.js?v=2", release: version, lineOffset: 2 }),
    );
    const e = await storedEvent(server, t, id);
    expect(topFrame(e)).toMatchObject({ filename: "src/app.js", function: "thrower", lineno: 2, colno: 9 });

    // A release bundle (sentry-cli 2.x without artifact-bundle support) assembled from chunks.
    const bundle = buildBundle([
      { url: "~/assets/app.js", type: "minified_source", content: capture("app.min.js.orig"), headers: { Sourcemap: "app.js.map" } },
      { url: "~/assets/app.js.map", type: "source_map", content: capture("app.min.js.map.orig") },
    ]);
    const { final } = await raw.upload(bundle, {}, `releases/${encodeURIComponent("web@3.0.0")}/assemble`);
    expect(final.state).toBe("ok");
    const id3 = await sendEvent(
      server,
      t.dsn,
      vectorEvent({ file: "http://localhost/assets/app.js", release: "web@3.0.0", lineOffset: 2 }),
    );
    expect(topFrame(await storedEvent(server, t, id3))).toMatchObject({ filename: "src/app.js", lineno: 2 });

    // A minified file whose map was never uploaded: said so, with the release and the file.
    expect((await upload("~/static/other.min.js", 'function a(){throw new Error("boom")}function b(){a()}b();\n')).status).toBe(201);
    const other = "https://cdn.example.org/static/other.min.js";
    const missing = await storedEvent(
      server,
      t,
      await sendEvent(server, t.dsn, vectorEvent({ file: other, release: version, lineOffset: 2 })),
    );
    expect(topFrame(missing)).toMatchObject({ function: "a", lineno: 1, data: { sourcemap_error: "missing_sourcemap" } });
    expect(missing.errata.notes.find((n) => n.type === "sourcemap")?.detail).toBe(
      `Release ${version} has ~/static/other.min.js but not its source map ~/static/other.min.js.map (file ${other}). 3 frames left minified.`,
    );
  });

  test("the upload protocol: missing chunks first, idempotent re-assembly, clear errors", async () => {
    const app = injectedApp();
    const bundle = buildBundle(
      [
        {
          url: "~/p/app.min.js",
          type: "minified_source",
          content: app.js,
          headers: { "debug-id": app.debugId, sourcemap: "app.min.js.map" },
        },
        { url: "~/p/app.min.js.map", type: "source_map", content: app.map, headers: { "debug-id": app.debugId } },
      ],
      { org: "acme", project: "web" },
    );
    const { first, final } = await raw.upload(bundle);
    expect(first).toEqual({ state: "not_found", missingChunks: [first.missingChunks[0]], detail: null });
    expect(final).toEqual({ state: "ok", missingChunks: [], detail: null });
    const again = await raw.assemble({ checksum: first.missingChunks[0], chunks: first.missingChunks, projects: ["web"] });
    expect(again.state).toBe("ok");

    const notZip = new TextEncoder().encode("SYSB\u0002\u0000\u0000\u0000 definitely not a zip");
    expect((await raw.upload(notZip)).final).toMatchObject({ state: "error", detail: expect.stringMatching(/not a readable zip/) });
    const noManifest = (await raw.upload(buildBundle([]).subarray(0, 20))).final;
    expect(noManifest.state).toBe("error");
    const big = new Uint8Array(1.5 * MiB).map((_, i) => (i * 7919) % 251);
    expect((await raw.upload(big)).final).toMatchObject({ state: "error", detail: expect.stringMatching(/limit is 1048576/) });
    expect((await raw.upload(buildBundle([]), { projects: ["nope"] })).final).toMatchObject({
      state: "error",
      detail: expect.stringMatching(/Unknown project/),
    });

    const data = new TextEncoder().encode("chunk");
    const wrongName = await raw.chunks([{ data, name: "0".repeat(40) }]);
    expect(wrongName.status).toBe(400);
    expect(await wrongName.json()).toEqual({ error: "Checksum mismatch" });
    const bomb = await fetch(`${server.url}/api/0/organizations/${t.org}/chunk-upload/`, {
      method: "POST",
      headers: raw.headers(),
      body: (() => {
        const form = new FormData();
        form.append("file_gzip", new Blob([gzipSync(new Uint8Array(9 * MiB))]), "x");
        return form;
      })(),
    });
    expect(await bomb.json()).toEqual({ error: "Chunk size too large" });
    const many = await raw.chunks(Array.from({ length: 65 }, (_, i) => ({ data: new TextEncoder().encode(`c${i}`) })));
    expect(await many.json()).toEqual({ error: "Too many chunks" });
    const huge = await raw.chunks([{ data: new Uint8Array(2.5 * MiB).map((_, i) => i % 256), field: "file" }]);
    expect(huge.status).toBe(400);
    expect(await huge.json()).toEqual({ error: "Request too large" });
  });
});
