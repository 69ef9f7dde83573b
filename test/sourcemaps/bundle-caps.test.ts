/**
 * Bundle assembly's decompressed-size caps over HTTP against the built server, on both databases:
 * a file past SOURCEMAP_MAX_FILE_SIZE and a bundle past SOURCEMAP_MAX_UNPACKED_SIZE answer 413 with
 * their catalogue codes and store nothing; a lying zip is still refused as `error`; an ordinary
 * bundle still assembles (on the assembly thread, bundle-thread.ts).
 */
import zlib from "node:zlib";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startServer, type TestServer } from "../helpers/server";
import { dialects } from "../helpers/test-db";
import { buildBundle, createTenant, injectedApp, RawUploader, sha1, type Tenant } from "./helpers";

const MiB = 1024 * 1024;

/** A zip whose headers claim `claimed` bytes per entry (a lying archive; CRCs are not checked). */
function lyingZip(entries: Array<{ name: string; data: Buffer; claimed: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.claimed, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.claimed, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.data);
    centrals.push(central, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

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
