import zlib from "node:zlib";
import { describe, expect, test } from "vitest";
import { rawZip } from "../../../test/helpers/raw-zip";
import { BundleError } from "./bundle-manifest";
import { openBundle } from "./read-bundle";
import { rawEntries } from "./zip-entry";

const MiB = 1024 * 1024;

/** A raw deflate stream of `total` zeros from repeated full-flush blocks (about 1 KB per MiB). */
function zerosDeflated(total: number): Buffer {
  const block = zlib.deflateRawSync(Buffer.alloc(MiB), { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array(Math.ceil(total / MiB)).fill(block), zlib.deflateRawSync(Buffer.alloc(0))]);
}

/** A zip whose headers claim `claimed` bytes for each entry (CRCs are zero: nothing checks them). */
const zip = (entries: Array<{ name: string; data: Buffer; method: number; claimed: number }>): Buffer =>
  rawZip(entries.map((e) => ({ name: e.name, data: e.data, method: e.method, size: e.claimed })));

const manifest = Buffer.from(JSON.stringify({ files: { "files/a.js": { url: "~/a.js", type: "minified_source" } } }));

describe("artifact bundle zip bombs", () => {
  test("headers claiming 1000 bytes for 1 GiB of zeros: inflation stops past the claim, the limit is named", () => {
    const bomb = zip([
      { name: "manifest.json", data: zlib.deflateRawSync(manifest), method: 8, claimed: manifest.length },
      { name: "files/a.js", data: zerosDeflated(1024 * MiB), method: 8, claimed: 1000 },
    ]);
    expect(bomb.length).toBeLessThan(2 * MiB);
    const b = openBundle(bomb, { maxFileSize: 64 * MiB, maxFiles: 10, maxTotalSize: 256 * MiB });
    const raw = b.raw("files/a.js");
    expect(raw).toMatchObject({ method: 8, declaredSize: 1000, maxSize: 64 * MiB });
    expect(() => b.read("files/a.js")).toThrow(BundleError);
    expect(() => b.read("files/a.js")).toThrow(/more than the 1000 bytes its zip headers claim.*limit is 67108864 bytes/);
  });

  test("an honest entry reads; a manifest bomb is refused the same way", () => {
    const honest = zip([
      { name: "manifest.json", data: zlib.deflateRawSync(manifest), method: 8, claimed: manifest.length },
      { name: "files/a.js", data: Buffer.from("var a = 1;"), method: 0, claimed: 10 },
    ]);
    expect(new TextDecoder().decode(openBundle(honest, { maxFileSize: MiB, maxFiles: 10, maxTotalSize: MiB }).read("files/a.js"))).toBe(
      "var a = 1;",
    );
    expect([...rawEntries(honest).keys()]).toEqual(["manifest.json", "files/a.js"]);
    const manifestBomb = zip([{ name: "manifest.json", data: zerosDeflated(256 * MiB), method: 8, claimed: 100 }]);
    expect(() => openBundle(manifestBomb, { maxFileSize: MiB, maxFiles: 10, maxTotalSize: MiB })).toThrow(
      /100 bytes its zip headers claim/,
    );
  });
});
