/**
 * Legacy `/store/` bodies (reference §2.3). Modern SDKs send one event as JSON; old raven clients
 * send it base64-encoded and usually zlib-compressed on top. Decoding is bounded: inflation stops
 * at `maxSize` bytes.
 */
import zlib from "node:zlib";
import { AppError } from "../../core/errors";

const OPEN_BRACE = 0x7b;

/** The event JSON bytes of a /store/ body (plain, base64, or base64 of zlib/raw deflate). */
export function decodeStoreBody(buf: Buffer, maxSize: number): Buffer {
  if (startsWithBrace(buf)) return buf;
  const text = buf.toString("latin1").trim();
  if (text.length === 0 || !/^[A-Za-z0-9+/=_\-\r\n]+$/.test(text)) {
    throw new AppError("invalid_json", "The store body is neither JSON nor base64.");
  }
  const decoded = Buffer.from(text, "base64");
  if (startsWithBrace(decoded)) return decoded;
  return inflateBounded(decoded, maxSize);
}

function inflateBounded(data: Buffer, maxSize: number): Buffer {
  for (const inflate of [zlib.inflateSync, zlib.inflateRawSync]) {
    try {
      return inflate(data, { maxOutputLength: maxSize });
    } catch (err) {
      if ((err as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
        throw new AppError("payload_too_large", `The decompressed event exceeds the limit of ${maxSize} bytes.`);
      }
    }
  }
  throw new AppError("invalid_json", "The store body is base64 but neither JSON nor zlib-compressed JSON.");
}

function startsWithBrace(buf: Uint8Array): boolean {
  for (const b of buf) {
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
    return b === OPEN_BRACE;
  }
  return false;
}
