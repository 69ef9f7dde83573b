/**
 * Bundle assembly's decompressed-size caps over HTTP against the built server, on both databases:
 * a file past SOURCEMAP_MAX_FILE_SIZE and a bundle past SOURCEMAP_MAX_UNPACKED_SIZE answer 413 with
 * their catalogue codes and store nothing; a lying zip is still refused as `error`; an ordinary
 * bundle still assembles (on the assembly thread, bundle-thread.ts).
 */
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { rawZip } from "../helpers/raw-zip";
import { startServer, type TestServer } from "../helpers/server";
import { dialects } from "../helpers/test-db";
import { buildBundle, createTenant, injectedApp, RawUploader, sha1, type Tenant } from "./helpers";

const MiB = 1024 * 1024;

/** A zip whose headers claim `claimed` bytes per entry (a lying archive; CRCs are not checked). */
const lyingZip = (entries: Array<{ name: string; data: Buffer; claimed: number }>): Buffer =>
  rawZip(entries.map((e) => ({ name: e.name, data: e.data, size: e.claimed })));

const zeros = (n: number) => "\0".repeat(n);

describe.each(await dialects())("bundle decompression caps on %s", (dialect) => {
  let server: TestServer;
  let t: Tenant;
  let raw: RawUploader;

  beforeAll(async () => {
    server = await startServer({
      dialect,
      env: { SOURCEMAP_MAX_FILE_SIZE: String(1 * MiB), SOURCEMAP_MAX_UNPACKED_SIZE: String(2 * MiB) },
    });
    t = await createTenant(server);
    raw = new RawUploader(server, t);
  });
  afterAll(async () => server?.stop());

  /** Uploads the bundle's one chunk, then assembles it: the raw response. */
  async function assemble(bundle: Uint8Array): Promise<Response> {
    const res = await raw.chunks([{ data: bundle }]);
    expect(res.status).toBe(200);
    const checksum = sha1(bundle);
    return fetch(`${server.url}/api/0/organizations/${t.org}/artifactbundle/assemble/`, {
      method: "POST",
      headers: { ...raw.headers(), "content-type": "application/json" },
      body: JSON.stringify({ checksum, chunks: [checksum], projects: [t.project] }),
    });
  }

  async function expectRefused(bundle: Uint8Array, code: string, detail: RegExp): Promise<void> {
    const res = await assemble(bundle);
    expect(res.status).toBe(413);
    const body = (await res.json()) as { detail: string; error: { code: string } };
    expect(body.error.code).toBe(code);
    expect(body.detail).toMatch(detail);
  }

  test("an ordinary bundle still assembles", async () => {
    const app = injectedApp();
    const bundle = buildBundle([
      {
        url: "~/c/app.min.js",
        type: "minified_source",
        content: app.js,
        headers: { "debug-id": app.debugId, sourcemap: "app.min.js.map" },
      },
      { url: "~/c/app.min.js.map", type: "source_map", content: app.map },
    ]);
    expect((await raw.upload(bundle)).final).toEqual({ state: "ok", missingChunks: [], detail: null });
  });

  test("a file past SOURCEMAP_MAX_FILE_SIZE: 413 bundle_entry_too_large, nothing stored", async () => {
    const bundle = buildBundle([{ url: "~/c/big.js", type: "minified_source", content: zeros(1.5 * MiB) }]);
    expect(bundle.length).toBeLessThan(64 * 1024);
    await expectRefused(bundle, "bundle_entry_too_large", /limit is 1048576 per file \(SOURCEMAP_MAX_FILE_SIZE\)/);
    // Not stored half: asking again does not find an assembled bundle, it is refused again.
    await expectRefused(bundle, "bundle_entry_too_large", /SOURCEMAP_MAX_FILE_SIZE/);
  });

  test("files together past SOURCEMAP_MAX_UNPACKED_SIZE: 413 bundle_unpacked_too_large", async () => {
    const bundle = buildBundle(["a", "b", "c"].map((n) => ({ url: `~/c/${n}.js`, type: "minified_source", content: zeros(0.9 * MiB) })));
    await expectRefused(bundle, "bundle_unpacked_too_large", /limit is 2097152 \(SOURCEMAP_MAX_UNPACKED_SIZE\)/);
  });

  test("a lying zip (claims 1000 bytes, inflates to 4 MiB) is still refused as an error state", async () => {
    const manifest = Buffer.from(JSON.stringify({ files: { "files/a.js": { url: "~/a.js", type: "minified_source" } } }));
    const bomb = lyingZip([
      { name: "manifest.json", data: zlib.deflateRawSync(manifest), claimed: manifest.length },
      { name: "files/a.js", data: zlib.deflateRawSync(Buffer.alloc(4 * MiB)), claimed: 1000 },
    ]);
    const res = await assemble(bomb);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      state: "error",
      detail: expect.stringMatching(/more than the 1000 bytes its zip headers claim/),
    });
  });
});
