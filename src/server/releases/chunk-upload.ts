/**
 * sentry-cli's chunk upload body (reference §8.3), read as it streams: multipart parts named by
 * the sha1 of their decompressed bytes (`file_gzip`, or `file` uncompressed). Each part is
 * inflated, counted and hashed piece by piece, so the request is never held whole; the caps
 * answer the same `upload_rejected` messages Sentry does, stopping as soon as one is passed.
 * What is held: the one chunk being read, decompressed (at most SOURCEMAP_CHUNK_SIZE), because
 * its row is written in one statement once its checksum is proven.
 */
import { createHash, type Hash } from "node:crypto";
import { Gunzip } from "fflate";
import { AppError } from "../../core/errors";
import { MultipartError, type MultipartEvent, MultipartParser, multipartBoundary } from "../../core/multipart-parts";

export interface ChunkLimits {
  /** largest decompressed chunk */
  chunkSize: number;
  /** most chunks in one request */
  chunksPerRequest: number;
  /** largest request body */
  maxRequestSize: number;
}

export interface UploadedChunk {
  /** sha1 hex, proven against the bytes */
  checksum: string;
  data: Buffer;
}

// fflate inflates a whole push at once: small slices bound what one push can produce (a gzip
// bomb inflates ~1000:1, so 4 KiB in → at most ~4 MiB out before the size cap is checked).
const INFLATE_SLICE = 4 * 1024;

const reject = (message: string) => new AppError("upload_rejected", message);

/** One chunk part being decoded: bytes in, decompressed bytes counted, hashed and kept. */
class ChunkSink {
  private readonly hash: Hash = createHash("sha1");
  private readonly pieces: Uint8Array[] = [];
  private size = 0;
  private readonly gunzip: Gunzip | null;

  constructor(
    readonly claimed: string,
    gzipped: boolean,
    private readonly maxSize: number,
  ) {
    this.gunzip = gzipped ? new Gunzip((data) => this.take(data)) : null;
  }

  write(bytes: Uint8Array): void {
    if (!this.gunzip) this.take(bytes);
    else for (let at = 0; at < bytes.length; at += INFLATE_SLICE) this.inflate(bytes.subarray(at, at + INFLATE_SLICE), false);
  }

  /** The chunk, once its checksum matches the name it was sent under. */
  finish(): UploadedChunk {
    if (this.gunzip) this.inflate(new Uint8Array(0), true);
    if (this.hash.digest("hex") !== this.claimed) throw reject("Checksum mismatch");
    return { checksum: this.claimed, data: Buffer.concat(this.pieces, this.size) };
  }

  private inflate(bytes: Uint8Array, final: boolean): void {
    try {
      this.gunzip?.push(bytes, final);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw reject("A chunk is not valid gzip");
    }
  }

  private take(data: Uint8Array): void {
    this.size += data.length;
    if (this.size > this.maxSize) throw reject("Chunk size too large");
    this.hash.update(data);
    this.pieces.push(data);
  }
}

/**
 * Reads the chunks of one upload request in order, handing each verified chunk to `store` before
 * the next is read (so one chunk at a time is in memory).
 */
export async function readChunks(
  req: { headers: Headers; body: ReadableStream<Uint8Array> | null },
  limits: ChunkLimits,
  store: (chunk: UploadedChunk) => Promise<void>,
): Promise<void> {
  const boundary = multipartBoundary(req.headers.get("content-type") ?? "");
  if (boundary === null) throw reject("Expected a multipart/form-data body");
  const declared = Number(req.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limits.maxRequestSize) throw reject("Request too large");
  if (!req.body) throw reject("The multipart body could not be parsed");

  const parser = new MultipartParser(boundary);
  const reader = req.body.getReader();
  let total = 0;
  let chunks = 0;
  let sink: ChunkSink | null = null;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > limits.maxRequestSize) throw reject("Request too large");
      for (const ev of parseOrReject(parser, value)) {
        if (ev.kind === "part") {
          sink = null;
          // Only file parts are chunks (FormData treats a part without a filename as a string).
          if ((ev.name === "file_gzip" || ev.name === "file") && ev.filename !== null) {
            if (++chunks > limits.chunksPerRequest) throw reject("Too many chunks");
            sink = new ChunkSink(ev.filename.toLowerCase(), ev.name === "file_gzip", limits.chunkSize);
          }
        } else if (ev.kind === "data") sink?.write(ev.bytes);
        else if (sink) {
          await store(sink.finish());
          sink = null;
        }
      }
    }
    try {
      parser.end();
    } catch {
      throw reject("The multipart body could not be parsed");
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
}

function parseOrReject(parser: MultipartParser, bytes: Uint8Array): MultipartEvent[] {
  try {
    return parser.push(bytes);
  } catch (err) {
    if (err instanceof MultipartError) throw reject("The multipart body could not be parsed");
    throw err;
  }
}
