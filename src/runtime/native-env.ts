// Bun keeps process.env to itself: assigning process.env.X does not reach the C environment that
// native libraries read with getenv(). transformers.js sets process.env.ORT_DISABLE_TELEMETRY=1
// before loading ONNX Runtime, which therefore never sees it — and ONNX Runtime 1.30 then starts
// its telemetry client (files $TMPDIR/.ses and mat-debug-<pid>.log, uploads to
// mobile.events.data.microsoft.com). This writes such variables where native code looks.
import { dlopen, FFIType } from "bun:ffi";

let setenv: ((name: Buffer, value: Buffer, overwrite: number) => number) | undefined;

/** setenv(3) in the process's C environment; false when libc cannot be reached. */
export function setNativeEnv(name: string, value: string): boolean {
  try {
    setenv ??= dlopen(process.platform === "darwin" ? "libSystem.B.dylib" : "libc.so.6", {
      setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
    }).symbols.setenv as never;
    return setenv!(Buffer.from(`${name}\0`), Buffer.from(`${value}\0`), 1) === 0;
  } catch {
    return false;
  }
}

/** Switches ONNX Runtime's telemetry off; call before onnxruntime-node is first loaded. */
export function disableOnnxTelemetry(): boolean {
  return setNativeEnv("ORT_DISABLE_TELEMETRY", "1");
}
