/** Stack traces: the frame list, its length limit, Relay's frame slimming and the frames' `vars` bags. */

import { BAG_LIMITS, type Frame, type Stacktrace, type TrimLimits } from "../event";
import { isObj, type Obj } from "./coerce";
import { normalizeFrame } from "./frame";
import type { Notes } from "./notes";
import { trimBag } from "./trim";

/** Normalises `holder.stacktrace` (an exception, a thread or the event itself). */
export function normalizeStacktraceField(holder: Obj, path: string, notes: Notes, limits: TrimLimits): void {
  const st = holder.stacktrace;
  if (st === undefined) return;
  if (!isObj(st)) {
    if (st !== null) notes.add("dropped", path, "`stacktrace` is not an object.");
    delete holder.stacktrace;
    return;
  }
  holder.stacktrace = normalizeStacktrace(st, path, notes, limits);
}

function normalizeStacktrace(st: Obj, path: string, notes: Notes, limits: TrimLimits): Stacktrace {
  const rawFrames = st.frames;
  let objects: Obj[] = [];
  if (Array.isArray(rawFrames)) {
    objects = rawFrames.filter(isObj);
    if (objects.length !== rawFrames.length)
      notes.add("dropped", `${path}.frames`, `${rawFrames.length - objects.length} frame(s) were not objects.`);
  } else if (rawFrames !== undefined && rawFrames !== null) {
    notes.add("dropped", `${path}.frames`, "`frames` is not a list.");
  }
  if (objects.length > limits.maxFrames) {
    // Frames run oldest → newest; the newest (crash side) matter most. Cut before copying.
    notes.add("trimmed", `${path}.frames`, `Kept the newest ${limits.maxFrames} of ${objects.length} frames.`);
    objects = objects.slice(objects.length - limits.maxFrames);
  }
  const trimmed = { count: 0 };
  const frames = objects.map((f) => normalizeFrame(f, trimmed));
  if (trimmed.count > 0) notes.add("trimmed", `${path}.frames`, `Cut over-long names or paths in ${trimmed.count} frame field(s).`);
  const slimmed = slimFrames(frames, limits.maxFramesWithDetail);
  if (slimmed > 0)
    notes.add(
      "trimmed",
      `${path}.frames`,
      `Removed pre_context, post_context and vars from ${slimmed} frame(s): only ${limits.maxFramesWithDetail} keep them.`,
    );
  trimFrameVars(frames, path, notes);
  return { ...st, frames };
}

/** Each frame's `vars` is a data bag (after slimming, so only the frames that keep them pay). */
function trimFrameVars(frames: Frame[], path: string, notes: Notes): void {
  frames.forEach((f, i) => {
    if (f.vars === undefined) return;
    const vars = trimBag(f.vars, BAG_LIMITS.frameVars, `${path}.frames.${i}.vars`, notes);
    if (vars === f.vars) return;
    // Frames may still be the caller's objects (copy-on-write): copy before changing.
    const { vars: _old, ...rest } = f;
    frames[i] = vars === undefined ? rest : { ...rest, vars: vars as Frame["vars"] };
  });
}

const hasDetail = (f: Frame): boolean => f.pre_context !== undefined || f.post_context !== undefined || f.vars !== undefined;

/**
 * Relay's `slim_frame_data`: when more than `allowance` frames exist, only `allowance` keep their
 * source context and variables — in-app frames first, and of each kind the frames at both ends of
 * the stack (the entry point and the crash side), slimming the middle. Returns how many frames
 * lost detail.
 */
function slimFrames(frames: Frame[], allowance: number): number {
  if (frames.length <= allowance) return 0;
  const app: number[] = [];
  const system: number[] = [];
  frames.forEach((f, i) => {
    (f.in_app === true ? app : system).push(i);
  });
  const systemHalf = Math.floor(Math.max(0, allowance - app.length) / 2);
  const systemDrop = system.slice(systemHalf, system.length - systemHalf);
  const remaining = Math.max(0, frames.length - allowance - systemDrop.length);
  const appHalf = Math.floor(Math.max(0, app.length - remaining) / 2);
  const appDrop = app.slice(appHalf, app.length - appHalf);
  let slimmed = 0;
  for (const i of [...systemDrop, ...appDrop]) {
    const f = frames[i];
    if (!f || !hasDetail(f)) continue;
    // Frames may still be the caller's objects (copy-on-write): copy before removing.
    const { pre_context: _pre, post_context: _post, vars: _vars, ...slim } = f;
    frames[i] = slim;
    slimmed += 1;
  }
  return slimmed;
}
