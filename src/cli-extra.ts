import type { Command } from "./cli.ts";
import { CliFailure, fsReason, UsageError } from "./cli/errors.ts";

/**
 * Commands contributed by other domains (models, ingestion worker). Kept apart so cli.ts stays
 * the contract of the foundation commands.
 */
export const EXTRA_COMMANDS: Record<string, Command> = {
  "models list": {
    usage: "models list",
    settings: [],
    help: "Scan the models folder (--models) and print the models found: id, role, tier, dims, context length, licence.",
    flags: [],
    dirs: { models: true },
    async run(_a, _f, config) {
      const { scanModels } = await import("./models/scan.ts");
      console.log(JSON.stringify(await scanModels(config.modelsDir), null, 2));
      return 0;
    },
  },
  "models fetch": {
    usage: "models fetch [NAME ...] [--hub-url URL]",
    settings: [],
    help: "Download the recommended models (or the named ones) from the Hugging Face hub into --models: resumable, checksum-verified. Needs network access.",
    flags: ["hub-url"],
    args: ["NAME..."],
    dirs: { models: true },
    async run(names, f, config) {
      const { httpUrlFlag, connectionReason } = await import("./cli/net.ts");
      const hubUrl = f["hub-url"] === undefined ? undefined : httpUrlFlag("hub-url", String(f["hub-url"]));
      const { fetchModels, formatProgressBar, RECOMMENDED_MODELS, ChecksumError } = await import("./models/fetch.ts");
      const known = RECOMMENDED_MODELS.map((m: { name: string }) => m.name);
      const unknown = names.find((n) => !known.includes(n));
      if (unknown) throw new UsageError(`unknown model "${unknown}"; known: ${known.join(", ")}`);
      let progress = false;
      try {
        await fetchModels({
          dir: config.modelsDir,
          hubUrl,
          names: names.length ? names : undefined,
          onProgress: (p) => {
            progress = true;
            process.stderr.write(`\r${formatProgressBar(p)}`);
          },
        });
      } catch (e) {
        if (progress) process.stderr.write("\n");
        const net = connectionReason(e);
        if (net) throw new CliFailure(`could not connect to ${hubUrl ?? "https://huggingface.co"} (${net})`);
        // The hub's answer (GET … answered 404) and a checksum mismatch are already one plain sentence.
        if (e instanceof ChecksumError || /^GET \S+ answered \d+$/.test((e as Error)?.message)) throw new CliFailure((e as Error).message);
        const fs = fsReason(e);
        if (fs) throw new CliFailure(`--models: cannot write model files under ${config.modelsDir} (${fs})`);
        throw e;
      }
      if (progress) process.stderr.write("\n");
      console.log(JSON.stringify({ ok: true, dir: config.modelsDir }));
      return 0;
    },
  },
  selftest: {
    usage: "selftest",
    settings: [],
    help: "Load LanceDB, ONNX Runtime, llama.cpp and canvas natively and use each once (models from --models); prints JSON, exits 1 on a failure.",
    flags: [],
    dirs: { models: true },
    async run(_a, _f, config) {
      const { selftest } = await import("./runtime/selftest.ts");
      const r = await selftest(config.modelsDir);
      console.log(JSON.stringify(r));
      return r.ok ? 0 : 1;
    },
  },
  ping: {
    usage: "ping [--url URL]",
    settings: ["host", "port"],
    help: "Exit 0 when GET URL/pub/ping answers 200 (default http://127.0.0.1:PORT); for health checks.",
    flags: ["url"],
    async run(_a, f, config) {
      const { httpUrlFlag, ping } = await import("./cli/net.ts");
      const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host;
      await ping(f.url === undefined ? `http://${host.includes(":") ? `[${host}]` : host}:${config.port}` : httpUrlFlag("url", String(f.url)));
      return 0;
    },
  },
  worker: {
    usage: "worker",
    settings: [],
    help: "Internal: an ingestion worker process, started by the server over an IPC channel.",
    flags: [],
    async run() {
      const { runWorker } = await import("./ingest/worker.ts");
      return runWorker();
    },
  },
};
