// Preloaded into a server by unhandled-error-stops-server.test.ts: SIGUSR2 makes it hit a bug the
// way production code would, a rejection nothing handles (SIGUSR1 a throw inside a timer). No
// kbqa code can be made to fail on purpose from outside, and none should carry a switch for it.
process.on("SIGUSR2", () => {
  void Promise.reject(new Error("injected rejection"));
});
process.on("SIGUSR1", () => {
  setTimeout(() => {
    throw new Error("injected throw");
  }, 0);
});
