// A worker in the middle of a long parse cannot run the timer or IPC event that would tell it its
// server is gone; the kernel kills it instead (PR_SET_PDEATHSIG), so a kill -9 of the server
// leaves no worker burning a core beside the restarted one.
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { startKbqa, waitFor } from "../helpers/server.ts";

const childWorkers = (parent: number): number[] =>
  readdirSync("/proc").filter((d) => /^\d+$/.test(d)).flatMap((d) => {
    try {
      const ppid = Number(readFileSync(`/proc/${d}/stat`, "utf8").split(") ")[1]!.split(" ")[1]);
      return ppid === parent && readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").includes("worker") ? [Number(d)] : [];
    } catch {
      return []; // exited while being read
    }
  });

const alive = (pid: number) => {
  try {
    return existsSync(`/proc/${pid}`) && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

test.skipIf(process.platform !== "linux")("a worker busy parsing dies with its server's kill -9", async () => {
  await using k = await startKbqa({ flags: ["--workers", "1"] });
  const org = await k.org();
  const corpusId = (await org.api("POST", "/v1/corpus/", { name: "c" })).body.id;
  const init = await org.api("POST", "/v1/doc/init", { corpusId, filename: "long.md", contentType: "text/markdown" });
  // Seconds of conversion, chunking and embedding in the worker.
  const body = Array.from({ length: 1500 }, (_, i) => `## Part ${i}\n\n` + `Part ${i} explains valves, pumps and the inspection routine. `.repeat(60)).join("\n\n");
  expect((await fetch(init.body.uploadUrl, { method: "PUT", headers: { "content-type": "text/markdown" }, body })).status).toBe(200);
  expect((await org.api("POST", `/v1/doc/${init.body.document.id}/commit`)).status).toBe(202);
  const [worker] = await waitFor(() => {
    const w = childWorkers(k.proc.pid);
    return w.length ? w : null;
  }, "a worker to start", 30_000);
  await waitFor(async () => (await org.api("GET", `/v1/doc/${init.body.document.id}/status`)).body.stage !== "converting" || null, "the parse to be under way", 30_000).catch(() => {});

  await k.stop("SIGKILL");
  const killedAt = Date.now();
  await waitFor(() => !alive(worker!), "the worker to die with the server", 5_000, 10);
  expect(Date.now() - killedAt).toBeLessThan(1_000);
});
