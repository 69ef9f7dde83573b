// Dev/test entry of the digest worker thread: Node 20 cannot start a .ts worker under tsx
// directly, so register tsx's loader inside the thread first, then load the real entry.
import { register } from "tsx/esm/api";

register();
await import("./worker-thread.ts");
