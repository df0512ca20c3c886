// A worker busy in a long synchronous parse cannot run the timer or the IPC "disconnect" event
// that tell it its server is gone: after a kill -9 of the server it went on parsing for seconds
// (up to the document's time limit), competing with a restarted server that re-ingests the same
// document. Linux can do it for the process instead: prctl(PR_SET_PDEATHSIG) has the kernel
// send a signal the moment the parent dies, whatever the worker is doing.
import { dlopen, FFIType } from "bun:ffi";

const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;

/** Arranges for the kernel to kill this process when its parent dies (Linux); false elsewhere or when libc cannot be reached. */
export function dieWithParent(): boolean {
  if (process.platform !== "linux") return false;
  try {
    const { prctl } = dlopen("libc.so.6", {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
    }).symbols;
    return prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) === 0;
  } catch {
    return false;
  }
}
