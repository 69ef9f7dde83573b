/** What the SDK says about IP inference, shared by `user` and `request` (reference §4.4). */

import type { NormalizedEvent } from "../event";
import { isObj, type Obj } from "./coerce";

export const AUTO_IP = "{{auto}}";

export function inferIpSetting(event: NormalizedEvent): unknown {
  const sdk = isObj(event.sdk) ? event.sdk : undefined;
  return isObj(sdk?.settings) ? (sdk.settings as Obj).infer_ip : undefined;
}
