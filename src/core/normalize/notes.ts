/** The processing notes of one normalisation: anything lost or replaced, recorded in `errata.notes`. */

import type { ProcessingNote } from "../event";

export class Notes {
  readonly list: ProcessingNote[] = [];
  add(type: string, path: string | undefined, detail: string): void {
    this.list.push(path === undefined ? { type, detail } : { type, path, detail });
  }
}
