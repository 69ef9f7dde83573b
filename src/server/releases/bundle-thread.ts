/**
 * `worker_threads` entry that unpacks one artifact bundle (unpack-bundle.ts) and posts the result.
 * One thread per assembly: a bundle of 480 MiB of zeros costs seconds of CPU to inflate, hash and
 * gzip, and on the main thread that stalled every request (/readyz 1–2 s) for as long.
 */
import { parentPort, workerData } from "node:worker_threads";
import { niceThisThread } from "../../thread-priority";
import { type UnpackRequest, unpackBundle } from "./unpack-bundle";

// The lowest priority (Linux): under contention the event loop (requests, /readyz, ingest) and
// the digest thread get the CPU first; the uploading CLI waits a little longer, nothing is lost.
const ASSEMBLY_NICE = 19;

niceThisThread(ASSEMBLY_NICE);
parentPort?.postMessage(unpackBundle(workerData as UnpackRequest));
