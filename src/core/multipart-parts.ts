/**
 * A streaming multipart/form-data parser (RFC 7578): bytes are pushed as they arrive and come out
 * as part events, a part's body in pieces, so a 32 MiB chunk upload is never held whole (issue
 * 43). Only what may still be the start of a boundary is kept between pushes. Pure: no I/O.
 */

export type MultipartEvent =
  | { kind: "part"; name: string; filename: string | null; contentType: string | null }
  | { kind: "data"; bytes: Uint8Array }
  | { kind: "end" };

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MultipartError";
  }
}

// A part's header block larger than this is not a form field a client of ours sends.
const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from("\r\n");
const HEADER_END = Buffer.from("\r\n\r\n");

/** The boundary from a `multipart/form-data; boundary=…` content type, or null. */
export function multipartBoundary(contentType: string): string | null {
  if (!/^multipart\/form-data/i.test(contentType)) return null;
  const m = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return m?.[1] ?? m?.[2] ?? null;
}

export class MultipartParser {
  private readonly delimiter: Buffer;
  // A leading CRLF lets the first boundary match the same delimiter as every later one.
  private buf: Buffer = Buffer.from(CRLF);
  private state: "preamble" | "after-boundary" | "headers" | "body" | "done" = "preamble";

  constructor(boundary: string) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  get done(): boolean {
    return this.state === "done";
  }

  /** The events these bytes complete (a part's data may come in many pieces). */
  push(bytes: Uint8Array): MultipartEvent[] {
    if (this.state === "done") return [];
    const out: MultipartEvent[] = [];
    this.buf = this.join(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), out);
    while (this.step(out));
    return out;
  }

  /**
   * The kept tail and the new bytes as one buffer. Inside a body the new bytes are not copied: when
   * no delimiter straddles the seam, the tail is data already and the new bytes are searched as
   * they are (a copy per push would double the garbage an upload makes).
   */
  private join(incoming: Buffer, out: MultipartEvent[]): Buffer {
    if (this.buf.length === 0) return incoming;
    const reach = this.delimiter.length - 1;
    if (this.state === "body" && this.buf.length <= reach && incoming.length > reach) {
      const seam = Buffer.concat([this.buf, incoming.subarray(0, reach)]);
      if (seam.indexOf(this.delimiter) === -1) {
        out.push({ kind: "data", bytes: this.buf });
        return incoming;
      }
    }
    return Buffer.concat([this.buf, incoming]);
  }

  /** The body ended: it must have ended with the closing boundary. */
  end(): void {
    if (this.state !== "done") throw new MultipartError("The multipart body ended before its closing boundary");
  }

  /** One state transition; false when more bytes are needed. */
  private step(out: MultipartEvent[]): boolean {
    switch (this.state) {
      case "preamble": {
        const at = this.buf.indexOf(this.delimiter);
        if (at === -1) {
          this.keepTail();
          return false;
        }
        this.buf = this.buf.subarray(at + this.delimiter.length);
        this.state = "after-boundary";
        return true;
      }
      case "after-boundary": {
        if (this.buf.length < 2) return false;
        if (this.buf[0] === 0x2d && this.buf[1] === 0x2d) {
          this.state = "done";
          this.buf = Buffer.alloc(0);
          return false;
        }
        // Transport padding (spaces, tabs) may follow a boundary before its CRLF.
        const eol = this.buf.indexOf(CRLF);
        if (eol === -1) {
          if (this.buf.length > 1024) throw new MultipartError("A multipart boundary is malformed");
          return false;
        }
        if (!/^[ \t]*$/.test(this.buf.subarray(0, eol).toString("latin1"))) throw new MultipartError("A multipart boundary is malformed");
        this.buf = this.buf.subarray(eol + 2);
        this.state = "headers";
        return true;
      }
      case "headers": {
        const at = this.buf.indexOf(HEADER_END);
        if (at === -1) {
          if (this.buf.length > MAX_HEADER_BYTES) throw new MultipartError("A multipart part's headers are too large");
          return false;
        }
        out.push(parsePartHeaders(this.buf.subarray(0, at).toString("utf8")));
        this.buf = this.buf.subarray(at + 4);
        this.state = "body";
        return true;
      }
      case "body": {
        const at = this.buf.indexOf(this.delimiter);
        if (at === -1) {
          const keep = this.delimiter.length - 1;
          if (this.buf.length > keep) out.push({ kind: "data", bytes: this.buf.subarray(0, this.buf.length - keep) });
          this.keepTail();
          return false;
        }
        if (at > 0) out.push({ kind: "data", bytes: this.buf.subarray(0, at) });
        out.push({ kind: "end" });
        this.buf = this.buf.subarray(at + this.delimiter.length);
        this.state = "after-boundary";
        return true;
      }
      default:
        return false;
    }
  }

  /** Keeps only the bytes that may begin a delimiter split across pushes. */
  private keepTail(): void {
    const keep = this.delimiter.length - 1;
    if (this.buf.length > keep) this.buf = Buffer.from(this.buf.subarray(this.buf.length - keep));
  }
}

function parsePartHeaders(block: string): MultipartEvent {
  let disposition = "";
  let contentType: string | null = null;
  for (const line of block.split("\r\n")) {
    const i = line.indexOf(":");
    if (i === -1) continue;
    const key = line.slice(0, i).trim().toLowerCase();
    if (key === "content-disposition") disposition = line.slice(i + 1).trim();
    else if (key === "content-type") contentType = line.slice(i + 1).trim();
  }
  const name = param(disposition, "name");
  if (!/^form-data\b/i.test(disposition) || name === null) throw new MultipartError("A multipart part has no form-data name");
  return { kind: "part", name, filename: param(disposition, "filename"), contentType };
}

/** A `name="value"` (or bare token) parameter of a Content-Disposition header. */
function param(header: string, key: string): string | null {
  const m = new RegExp(`;\\s*${key}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, "i").exec(header);
  if (!m) return null;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, "$1") : (m[2] ?? "");
}
