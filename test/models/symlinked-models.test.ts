// Operators link multi-gigabyte weights into the models folder rather than copy them; such a link
// was skipped without a word, so the server answered with the built-in models instead.
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { scanModels } from "../../src/models/scan.ts";
import { startKbqa } from "../helpers/server.ts";
import { STORIES_GGUF, tempModelsDir } from "./helpers/temp-models.ts";

test("a GGUF linked into the models folder, directly or in a linked folder, is listed; a dangling link is not", async () => {
  const tmp = await tempModelsDir();
  try {
    symlinkSync(STORIES_GGUF, join(tmp.dir, "linked.gguf"));
    const elsewhere = join(tmp.dir, "..", `${tmp.dir.split("/").pop()}-elsewhere`);
    mkdirSync(elsewhere, { recursive: true });
    symlinkSync(STORIES_GGUF, join(elsewhere, "inner.gguf"));
    symlinkSync(elsewhere, join(tmp.dir, "family"));
    symlinkSync(join(tmp.dir, "missing.gguf"), join(tmp.dir, "dangling.gguf"));
    const listed = (await scanModels(tmp.dir)).map(({ id, role, file }) => ({ id, role, file }));
    expect(listed).toEqual([
      { id: "family/inner", role: "chat", file: "family/inner.gguf" },
      { id: "linked", role: "chat", file: "linked.gguf" },
    ]);

    // The server answers with it: listed by the API as the default chat model.
    await using k = await startKbqa({ modelsDir: tmp.dir });
    const org = await k.org();
    const models = (await org.api("GET", "/v1/config/model")).body.items as { id: string; role: string; default: boolean }[];
    expect(models.filter((m) => m.role === "chat").map(({ id, default: d }) => ({ id, default: d }))).toEqual([
      { id: "family/inner", default: true },
      { id: "linked", default: false },
      expect.objectContaining({ id: expect.stringMatching(/^builtin-/), default: false }),
    ]);
  } finally {
    await tmp.cleanup();
  }
});
