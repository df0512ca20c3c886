// Only reachable inside the compiled executable: scripts/build.ts rewrites the native loaders of
// LanceDB, @napi-rs/canvas, onnxruntime-node and node-llama-cpp to call these functions.
import { MANIFEST } from "kbqa-native-manifest";
import { loadAddon, nativeGroupDir as groupDir } from "./native.ts";
import { disableOnnxTelemetry } from "./native-env.ts";

export const nativeAddon = (group: string, file: string): any => {
  if (group === "onnxruntime") disableOnnxTelemetry();
  return loadAddon(MANIFEST, group, file);
};
export const nativeGroupDir = (group: string): string => groupDir(MANIFEST, group);
