/**
 * Inflating a replay recording without blocking the event loop or trusting its size: zlib runs in
 * libuv's thread pool, fed 64 KiB at a time, and the output is counted as it comes — past `cap`
 * the stream is destroyed at once (a bomb costs at most `cap` bytes of work) and the caller gets
 * `replay_segment_too_large`; a stream that is not valid zlib is `replay_invalid_recording`.
 * With `keep: false` (ingest only validates) the output is counted and dropped, so memory stays at
 * one chunk whatever the segment inflates to.
 */
import zlib from "node:zlib";
import { AppError } from "../core/errors";

const CHUNK = 64 * 1024;

export interface Inflated {
  size: number;
  /** the first byte that is not JSON whitespace (-1 for none) */
  first: number;
  data?: Buffer;
}

export function inflateBounded(input: Uint8Array, cap: number, keep: boolean): Promise<Inflated> {
  return new Promise((resolve, reject) => {
    const inflate = zlib.createInflate({ chunkSize: CHUNK });
    const parts: Buffer[] = [];
    let size = 0;
    let first = -1;
    let done = false;
    const fail = (err: AppError) => {
      if (done) return;
      done = true;
      inflate.destroy();
      reject(err);
    };
    inflate.on("data", (chunk: Buffer) => {
      if (done) return;
      if (first === -1) {
        for (const c of chunk) {
          if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
            first = c;
            break;
          }
        }
      }
      size += chunk.length;
      if (size > cap) {
        fail(
          new AppError("replay_segment_too_large", `A replay segment inflates to more than ${cap} bytes (REPLAY_SEGMENT_MAX_INFLATED).`),
        );
        return;
      }
      if (keep) parts.push(chunk);
    });
    inflate.on("error", () =>
      fail(new AppError("replay_invalid_recording", "The replay recording is malformed: its events are not a valid zlib stream.")),
    );
    inflate.on("end", () => {
      if (done) return;
      done = true;
      resolve({ size, first, data: keep ? Buffer.concat(parts, size) : undefined });
    });
    // Fed in slices with backpressure: the pool works a slice at a time, this loop stays free.
    let offset = 0;
    const feed = () => {
      while (!done && offset < input.length) {
        const end = Math.min(offset + CHUNK, input.length);
        const more = inflate.write(input.subarray(offset, end));
        offset = end;
        if (!more) {
          inflate.once("drain", feed);
          return;
        }
      }
      if (!done && offset >= input.length) inflate.end();
    };
    feed();
  });
}
