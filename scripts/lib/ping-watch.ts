/**
 * Pings a URL until stopped, `gapMs` apart (0: back to back). A ping waits as long as the
 * server's event loop is held, so the worst answer time is the longest hold meanwhile.
 */
export function watchPings(url: string, gapMs = 10): { stop(): Promise<number> } {
  let stopped = false;
  let worst = 0;
  const loop = (async () => {
    while (!stopped) {
      const t = performance.now();
      await (await fetch(url)).arrayBuffer();
      worst = Math.max(worst, performance.now() - t);
      if (gapMs > 0) await Bun.sleep(gapMs);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return worst;
    },
  };
}
