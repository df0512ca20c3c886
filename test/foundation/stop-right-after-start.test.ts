// SIGTERM sent as soon as the listening line is read must drain and exit 0: the handlers were
// installed after that line, and one start-then-stop in four ended with the signal's default
// action (exit 143, nothing drained). Supervisors and tests do exactly this.
import { expect, test } from "bun:test";
import { startKbqa } from "../helpers/server.ts";

test("twelve starts each stopped the moment they listen: every one exits 0", async () => {
  const codes: number[] = [];
  for (let i = 0; i < 12; i++) {
    const k = await startKbqa();
    codes.push(await k.stop("SIGTERM"));
  }
  expect(codes).toEqual(codes.map(() => 0));
});
