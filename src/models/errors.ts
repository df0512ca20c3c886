// Model-layer errors. The HTTP layer maps them to AppError codes (UnknownModelError → 400,
// ModelBusyError → 503); they stay plain classes here so src/models has no HTTP dependency.
export class UnknownModelError extends Error {
  readonly code = "UNKNOWN_MODEL";
  constructor(readonly modelId: string, readonly role: string) {
    super(`Unknown ${role} model "${modelId}". GET /v1/config/model lists the models valid for use.`);
    this.name = "UnknownModelError";
  }
}

export class ModelBusyError extends Error {
  readonly code = "MODEL_BUSY";
  constructor(readonly modelId: string, readonly waitedMs: number) {
    super(`Model "${modelId}" is busy: no generation slot became free within ${waitedMs} ms. Retry later.`);
    this.name = "ModelBusyError";
  }
}

export class ModelAbortedError extends Error {
  readonly code = "ABORTED";
  constructor() {
    super("Generation was cancelled.");
    this.name = "ModelAbortedError";
  }
}

export class RemoteModelError extends Error {
  readonly code = "REMOTE_MODEL_ERROR";
  constructor(readonly status: number, detail: string) {
    super(`Remote model server answered ${status}: ${detail.slice(0, 300)}`);
    this.name = "RemoteModelError";
  }
}

/**
 * The default chat model's file cannot be loaded at start (a partial copy or download, or not a
 * GGUF model at all). node-llama-cpp then threw "undefined is not an object (evaluating
 * 'this.ggufFileInfo.metadata.general.architecture')" and `kbqa serve` printed that with a stack;
 * cli.ts prints this message as one line.
 */
export class ModelFileError extends Error {
  override name = "ModelFileError";
}
