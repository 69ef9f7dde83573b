import zlib from "node:zlib";
import { describe, expect, test } from "vitest";
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
function zip(entries: Array<{ name: string; data: Buffer; method: number; claimed: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.claimed, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(e.method, 10);
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
