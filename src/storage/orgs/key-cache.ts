/**
 * Short-lived cache of DSN key lookups, so an accepted request costs no database read.
 * Positive entries live 10 s, negative ones 2 s: a revoked or disabled key stops working within
 * seconds even without `invalidate()`, which the UI/CLI call after changing keys for immediacy.
 * Concurrent misses for one key share a single lookup. The map is bounded so random keys sent by a
 * hostile client cannot grow memory without limit.
 */
import type { Db } from "../db";
import { retryOnLostConnection } from "../storage-health";
import { findIngestKey, type IngestKey, projectExists } from "./projects";

export interface KeyCacheOptions {
  positiveTtlMs?: number;
  negativeTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

interface Entry<T> {
  value: T;
  expires: number;
}

export interface KeyCache {
  /** Cached answer: the key, `null` (known not to exist) or `undefined` (not cached). */
  peek(publicKey: string): IngestKey | null | undefined;
  /** Looks the key up (from cache or database). */
  get(publicKey: string): Promise<IngestKey | null>;
  /** Does a project with this id exist? Only asked on the error path; cached the same way. */
  projectExists(projectId: number): Promise<boolean>;
  invalidate(publicKey?: string): void;
  close(): void;
}

/** Live caches of this process, so `invalidate()` can reach them without plumbing. */
const live = new Set<KeyCache>();

/** Drops cached key lookups in every cache of this process (call after creating/disabling keys). */
export function invalidate(publicKey?: string): void {
  for (const cache of live) cache.invalidate(publicKey);
}

export function createKeyCache(db: Db, opts: KeyCacheOptions = {}): KeyCache {
  const positiveTtl = opts.positiveTtlMs ?? 10_000;
  const negativeTtl = opts.negativeTtlMs ?? 2_000;
  const maxEntries = opts.maxEntries ?? 10_000;
  const now = opts.now ?? Date.now;
  const keys = new Map<string, Entry<IngestKey | null>>();
  const inflight = new Map<string, Promise<IngestKey | null>>();
  const projects = new Map<number, Entry<boolean>>();

  function remember<K, T>(map: Map<K, Entry<T>>, k: K, value: T, ttl: number): void {
    // Crude but O(1) bound: a full map is simply emptied (entries are cheap to reload).
    if (map.size >= maxEntries) map.clear();
    map.set(k, { value, expires: now() + ttl });
  }

  function peek(publicKey: string): IngestKey | null | undefined {
    const e = keys.get(publicKey);
    if (!e) return undefined;
    if (e.expires <= now()) {
      keys.delete(publicKey);
      return undefined;
    }
    return e.value;
  }

  async function load(publicKey: string): Promise<IngestKey | null> {
    try {
      // A PostgreSQL backend terminated under the lookup: the pool reconnects, the read runs again.
      const found = (await retryOnLostConnection(() => findIngestKey(db, publicKey))) ?? null;
      remember(keys, publicKey, found, found ? positiveTtl : negativeTtl);
      return found;
    } finally {
      inflight.delete(publicKey);
    }
  }

  const cache: KeyCache = {
    peek,
    get(publicKey: string): Promise<IngestKey | null> {
      const hit = peek(publicKey);
      if (hit !== undefined) return Promise.resolve(hit);
      let p = inflight.get(publicKey);
      if (!p) {
        p = load(publicKey);
        inflight.set(publicKey, p);
      }
      return p;
    },
    async projectExists(projectId: number): Promise<boolean> {
      const e = projects.get(projectId);
      if (e && e.expires > now()) return e.value;
      const exists = await retryOnLostConnection(() => projectExists(db, projectId));
      remember(projects, projectId, exists, exists ? positiveTtl : negativeTtl);
      return exists;
    },
    invalidate(publicKey?: string): void {
      if (publicKey === undefined) {
        keys.clear();
        projects.clear();
      } else keys.delete(publicKey);
    },
    close(): void {
      live.delete(cache);
      keys.clear();
      projects.clear();
    },
  };
  live.add(cache);
  return cache;
}
