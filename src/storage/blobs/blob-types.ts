/** The blob store's contract (blob-store.ts picks the implementation). */
import type { Readable } from "node:stream";

export interface BlobInfo {
  key: string;
  size: number;
  /** when it was written (epoch ms) */
  createdAt: number;
}

export interface BlobStore {
  readonly kind: "files" | "postgres";
  /** Stores `data` under `key` (replacing it), durably before resolving. */
  put(key: string, data: Uint8Array): Promise<void>;
  /** The bytes, or undefined when there is no such blob; `blob_too_large` past `maxBytes`. */
  get(key: string, maxBytes?: number): Promise<Buffer | undefined>;
  /** The bytes as a stream (files are read in chunks), or undefined when absent. */
  stream(key: string): Promise<Readable | undefined>;
  /** Removes these blobs (absent ones are fine). */
  delete(keys: readonly string[]): Promise<void>;
  /** Removes every blob whose key starts with `prefix` (a folder: ends with "/"); answers how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** Every blob under `prefix`, with its size (for sweeps, backups, the storage page). */
  list(prefix: string): AsyncIterable<BlobInfo>;
}

const KEY = /^[a-z0-9_-][a-z0-9_.-]*(\/[a-z0-9_-][a-z0-9_.-]*)*$/;

/** Keys are plain relative paths: lower-case segments, no `..`, no leading dot or slash. */
export function checkKey(key: string): string {
  if (!KEY.test(key) || key.length > 512) throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  return key;
}

/** A prefix is a key or a folder of keys (trailing "/"). */
export function checkPrefix(prefix: string): string {
  if (prefix === "") return prefix;
  checkKey(prefix.endsWith("/") ? prefix.slice(0, -1) : prefix);
  return prefix;
}

export class BlobTooLargeError extends Error {
  constructor(
    readonly key: string,
    readonly size: number,
  ) {
    super(`blob ${key} is ${size} bytes, more than the caller allows`);
    this.name = "BlobTooLargeError";
  }
}
