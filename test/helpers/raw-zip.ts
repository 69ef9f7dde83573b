/**
 * A zip written byte by byte, for archives no zip library will write: headers that lie about
 * sizes (zip bombs), a stored deflate stream reused across entries, sentry-cli's SYSB prefix.
 * Used by the zip-bomb unit test, the bundle caps test and `bench:bundle`.
 */
export interface RawZipEntry {
  name: string;
  /** the entry's bytes as stored (already deflated when `method` is 8) */
  data: Buffer;
  /** 8 deflate (default), 0 stored */
  method?: number;
  /** the uncompressed size the headers claim */
  size: number;
  /** the CRC-32 the headers claim (0 when nothing checks it) */
  crc?: number;
}

export function rawZip(entries: RawZipEntry[], prefix: Buffer = Buffer.alloc(0)): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const method = e.method ?? 8;
    const crc = e.crc ?? 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(e.data.length, 20);
    central.writeUInt32LE(e.size, 24);
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
  return Buffer.concat([prefix, ...locals, cd, end]);
}
