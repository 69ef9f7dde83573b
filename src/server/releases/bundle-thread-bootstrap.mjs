// Dev/test entry of the bundle assembly thread: Node 20 cannot start a .ts worker under tsx
// directly, so register tsx's loader inside the thread first, then load the real entry.
import { register } from "tsx/esm/api";

register();
await import("./bundle-thread.ts");
