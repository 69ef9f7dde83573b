/**
 * POSIX ustar headers, the 512-byte blocks of a tar archive (what `tar tzf` reads), encoded and
 * decoded without I/O. Sizes past ustar's 8 GiB octal field use GNU tar's base-256 form, so a
 * database of any size fits; names up to 255 bytes use the prefix field.
 */
export const BLOCK = 512;

export interface TarHeader {
  name: string;
  size: number;
  /** epoch seconds */
  mtime: number;
}

function writeOctal(buf: Buffer, offset: number, width: number, value: number): void {
  buf.write(`${value.toString(8).padStart(width - 1, "0")}\0`, offset, width, "ascii");
}

function writeSize(buf: Buffer, value: number): void {
  if (value < 8 ** 11) {
    writeOctal(buf, 124, 12, value);
    return;
  }
  // base-256: a set high bit, then the value big-endian in the field's remaining bytes.
  buf[124] = 0x80;
  let v = BigInt(value);
  for (let i = 135; i > 124; i--) {
    buf[i] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** Splits a long name into ustar's prefix (≤155) and name (≤100) at a slash. */
function splitName(name: string): { prefix: string; base: string } {
  if (Buffer.byteLength(name) <= 100) return { prefix: "", base: name };
  for (let i = name.indexOf("/"); i !== -1; i = name.indexOf("/", i + 1)) {
    const prefix = name.slice(0, i);
    const base = name.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(base) <= 100) return { prefix, base };
  }
  throw new Error(`Path too long for a tar header: ${name}`);
}

/** The 512-byte header of a regular file. */
export function encodeHeader(h: TarHeader): Buffer {
  const buf = Buffer.alloc(BLOCK);
  const { prefix, base } = splitName(h.name);
  buf.write(base, 0, 100, "utf8");
  writeOctal(buf, 100, 8, 0o600);
  writeOctal(buf, 108, 8, 0);
  writeOctal(buf, 116, 8, 0);
  writeSize(buf, h.size);
  writeOctal(buf, 136, 12, Math.max(0, Math.floor(h.mtime)));
  buf.write("0", 156, 1, "ascii");
  buf.write("ustar\0", 257, 6, "ascii");
  buf.write("00", 263, 2, "ascii");
  buf.write(prefix, 345, 155, "utf8");
  buf.fill(0x20, 148, 156);
  writeOctal(buf, 148, 7, checksum(buf));
  buf[155] = 0x20;
  return buf;
}

function checksum(buf: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (buf[i] as number);
  return sum;
}

function readString(buf: Buffer, offset: number, width: number): string {
  const end = buf.indexOf(0, offset);
  return buf.toString("utf8", offset, end === -1 || end > offset + width ? offset + width : end);
}

function readNumber(buf: Buffer, offset: number, width: number): number {
  if ((buf[offset] as number) & 0x80) {
    let v = 0n;
    for (let i = offset + 1; i < offset + width; i++) v = (v << 8n) | BigInt(buf[i] as number);
    return Number(v);
  }
  const text = readString(buf, offset, width).trim();
  return text === "" ? 0 : Number.parseInt(text, 8);
}

/** `null` for an end-of-archive (all-zero) block; throws on a block that is not a valid header. */
export function decodeHeader(buf: Buffer): (TarHeader & { type: string }) | null {
  if (buf.length !== BLOCK) throw new Error("A tar header is 512 bytes");
  if (buf.every((b) => b === 0)) return null;
  if (readNumber(buf, 148, 8) !== checksum(buf)) throw new Error("Bad tar header checksum");
  const prefix = readString(buf, 345, 155);
  const base = readString(buf, 0, 100);
  return {
    name: prefix ? `${prefix}/${base}` : base,
    size: readNumber(buf, 124, 12),
    mtime: readNumber(buf, 136, 12),
    type: String.fromCharCode(buf[156] as number) || "0",
  };
}

/** Zero bytes that pad a file's data to a whole block. */
export function paddingOf(size: number): number {
  return (BLOCK - (size % BLOCK)) % BLOCK;
}
