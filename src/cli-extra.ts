import type { Command } from "./cli.ts";

/**
 * Commands contributed by other domains (models, ingestion worker). Kept apart so cli.ts stays
 * the contract of the foundation commands.
 */
export const EXTRA_COMMANDS: Record<string, Command> = {
  selftest: {
    usage: "selftest",
    help: "Load LanceDB, ONNX Runtime, llama.cpp and canvas natively and use each once (models from --models); prints JSON, exits 1 on a failure.",
    flags: [],
    async run(_a, _f, config) {
      const { selftest } = await import("./runtime/selftest.ts");
      const r = await selftest(config.modelsDir);
      console.log(JSON.stringify(r));
      return r.ok ? 0 : 1;
    },
  },
  ping: {
    usage: "ping [--url URL]",
    help: "Exit 0 when GET URL/pub/ping answers 200 (default http://127.0.0.1:PORT); for health checks.",
    flags: ["url"],
    async run(_a, f, config) {
      const { ping } = await import("./runtime/selftest.ts");
      const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
      return ping((f.url as string) || `http://${host.includes(":") ? `[${host}]` : host}:${config.port}`);
    },
  },
  worker: {
    usage: "worker",
    help: "Internal: an ingestion worker process, started by the server over an IPC channel.",
    flags: [],
    async run() {
      const { runWorker } = await import("./ingest/worker.ts");
      return runWorker();
    },
  },
};
