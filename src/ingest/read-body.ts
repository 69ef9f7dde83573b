/**
 * Streams a request body under limits (SPEC §5, reference §3.7):
 *  - Content-Length, when sent, is checked before reading a byte; chunked bodies (what @sentry/node
 *    sends) are counted as they stream.
 *  - Content-Encoding gzip / deflate (zlib, else raw) / br is decompressed by a streaming zlib
 *    whose output is counted; past the limit it is destroyed at once, so a decompression bomb
 *    costs one output chunk (16 KiB) beyond the limit, not its expanded size.
 *  - A body that does not finish within `timeoutMs` fails with 408.
 *  - A client that disconnects mid-body fails with `ClientGoneError` (the caller answers nothing).
 * After a failure the rest of the body is read and discarded (bounded), so the answer can still be
 * delivered on the connection instead of being lost to a TCP reset.
 */
import type { IncomingMessage } from "node:http";
import zlib from "node:zlib";
import { AppError } from "../core/errors";

export type BodyEncoding = "identity" | "gzip" | "deflate" | "br";

/**
 * Bytes that all bodies being read may hold together (decompressed). Each body is bounded by its
 * own limit; this bounds the sum, so many large or bomb-like requests at once cannot exhaust
 * memory: past it a request is refused with 503 (the SDK retries later) instead.
 */
export class MemoryBudget {
  used = 0;

  constructor(readonly max: number) {}

  take(n: number): boolean {
    if (this.used + n > this.max) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

export interface BodyLimits {
  /** Bytes on the wire (before decompression). */
  maxCompressed: number;
  /** Bytes after decompression. */
  maxDecompressed: number;
  timeoutMs: number;
  /** shared by the requests being read at the same time */
  budget?: MemoryBudget;
}

/** The client went away before the body was complete: nothing to answer, nothing to store. */
export class ClientGoneError extends Error {
  constructor() {
    super("client disconnected before the body was complete");
    this.name = "ClientGoneError";
  }
}

/**
 * Maps a Content-Encoding header to a decoder. Empty and `UTF-8` are what sentry-ruby 5.x and old
 * Android SDKs send for "none"; Relay drops them, so do we. Anything else unknown → 415.
 */
export function parseContentEncoding(header: string | undefined): BodyEncoding {
  if (header === undefined) return "identity";
  const v = header.trim().toLowerCase();
  switch (v) {
    case "":
    case "identity":
    case "utf-8":
    case "utf8":
      return "identity";
    case "gzip":
    case "x-gzip":
      return "gzip";
    case "deflate":
      return "deflate";
    case "br":
      return "br";
    default:
      throw new AppError("unsupported_encoding", `Content-Encoding "${v.slice(0, 40)}" is not supported (use gzip, deflate or br).`);
  }
}

/** Rejects up front when a declared Content-Length is already over the limit. */
export function checkContentLength(header: string | undefined, maxCompressed: number): void {
  if (header === undefined) return;
  const n = Number(header);
  if (Number.isFinite(n) && n > maxCompressed) {
    throw new AppError("payload_too_large", `The body is ${n} bytes; the limit is ${maxCompressed}.`);
  }
}

/** Reads the whole (decompressed) body. Rejects with AppError or ClientGoneError. */
export function readBody(req: IncomingMessage, encoding: BodyEncoding, limits: BodyLimits): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    new BodyReader(req, encoding, limits, resolve, reject);
  });
}

/**
 * Discards the rest of a request body we answered early (auth failure, Content-Length too big),
 * so the client can read the answer; a body longer than `cap` gets its connection closed instead.
 */
export function discardBody(req: IncomingMessage, cap: number): void {
  if (req.complete || req.readableEnded || req.destroyed) return;
  let seen = 0;
  req.on("error", noop);
  req.on("data", (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > cap) req.destroy();
  });
}

function noop(): void {}

/** One per request; a class so the handlers are methods, not a fresh set of nested closures. */
class BodyReader {
  private readonly chunks: Buffer[] = [];
  /** Decompressed bytes kept so far. */
  private size = 0;
  /** Bytes received on the wire. */
  private raw = 0;
  /** Bytes taken from the shared budget. */
  private reserved = 0;
  private done = false;
  private inflater: (zlib.Zlib & NodeJS.ReadWriteStream) | undefined;
  /** deflate only: the first bytes, kept until we can tell zlib-wrapped from raw. */
  private head: Buffer[] | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly req: IncomingMessage,
    private readonly encoding: BodyEncoding,
    private readonly limits: BodyLimits,
    private readonly resolve: (body: Buffer) => void,
    private readonly reject: (err: Error) => void,
  ) {
    this.onRaw = this.onRaw.bind(this);
    this.onRawEnd = this.onRawEnd.bind(this);
    this.onGone = this.onGone.bind(this);
    this.onClose = this.onClose.bind(this);
    this.onInflated = this.onInflated.bind(this);
    this.finish = this.finish.bind(this);
    this.onInflateError = this.onInflateError.bind(this);
    this.timer = setTimeout(this.onTimeout.bind(this), limits.timeoutMs);
    this.timer.unref();
    if (encoding === "gzip") this.startInflater(zlib.createGunzip());
    else if (encoding === "br") this.startInflater(zlib.createBrotliDecompress());
    else if (encoding === "deflate") this.head = [];
    req.on("data", this.onRaw);
    req.on("end", this.onRawEnd);
    req.on("error", this.onGone);
    req.on("close", this.onClose);
  }

  private startInflater(z: zlib.Zlib & NodeJS.ReadWriteStream): void {
    this.inflater = z;
    z.on("data", this.onInflated);
    z.on("end", this.finish);
    z.on("error", this.onInflateError);
  }

  private onRaw(chunk: Buffer): void {
    this.raw += chunk.length;
    if (this.done) {
      // Discarding after a failure: bounded, then the connection is cut.
      if (this.raw > 2 * this.limits.maxCompressed) this.req.destroy();
      return;
    }
    if (this.raw > this.limits.maxCompressed) {
      this.fail(new AppError("payload_too_large", `The body exceeds the limit of ${this.limits.maxCompressed} bytes.`));
      return;
    }
    if (this.encoding === "identity") {
      this.keep(chunk);
      return;
    }
    if (this.head) {
      this.head.push(chunk);
      if (this.raw >= 2) this.startDeflate();
      return;
    }
    this.inflater?.write(chunk);
  }

  /** `deflate` is zlib-wrapped per RFC 9110, but some clients send raw deflate: sniff the header. */
  private startDeflate(): void {
    const head = Buffer.concat(this.head ?? []);
    this.head = undefined;
    const zlibWrapped = head.length >= 2 && (head[0] & 0x0f) === 8 && ((head[0] << 8) | head[1]) % 31 === 0;
    this.startInflater(zlibWrapped ? zlib.createInflate() : zlib.createInflateRaw());
    this.inflater?.write(head);
  }

  private onRawEnd(): void {
    if (this.done) return;
    if (this.encoding === "identity") {
      this.finish();
      return;
    }
    if (this.head) this.startDeflate();
    this.inflater?.end();
  }

  private onInflated(chunk: Buffer): void {
    if (this.done) return;
    this.keep(chunk);
  }

  private keep(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.limits.maxDecompressed) {
      this.fail(new AppError("payload_too_large", `The decompressed body exceeds the limit of ${this.limits.maxDecompressed} bytes.`));
      return;
    }
    if (this.limits.budget) {
      if (!this.limits.budget.take(chunk.length)) {
        this.fail(new AppError("overloaded", "Too many large requests are being received at once; retry later."));
        return;
      }
      this.reserved += chunk.length;
    }
    this.chunks.push(chunk);
  }

  private onInflateError(): void {
    this.fail(new AppError("invalid_envelope", `The body could not be decompressed (${this.encoding}).`));
  }

  private onGone(): void {
    this.fail(new ClientGoneError());
  }

  private onClose(): void {
    if (!this.req.complete) this.fail(new ClientGoneError());
  }

  private onTimeout(): void {
    this.fail(new AppError("request_timeout", `The body did not arrive within ${this.limits.timeoutMs} ms.`));
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.release();
    clearTimeout(this.timer);
    const body = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    this.chunks.length = 0;
    this.resolve(body);
  }

  /** Reading is over: the body's bytes no longer count against the shared budget. */
  private release(): void {
    this.limits.budget?.give(this.reserved);
    this.reserved = 0;
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.release();
    clearTimeout(this.timer);
    this.chunks.length = 0;
    const z = this.inflater;
    if (z) {
      this.inflater = undefined;
      // Stop decompressing now; its late events are ignored (done) and errors swallowed.
      z.removeAllListeners("data");
      z.on("error", noop);
      (z as unknown as { destroy(): void }).destroy();
    }
    this.reject(err);
  }
}
