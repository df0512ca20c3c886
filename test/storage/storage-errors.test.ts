// The data-volume classifier over errors the libraries really throw (no root needed: /dev/full
// answers ENOSPC to every write, SQLite reports SQLITE_FULL past max_page_count).
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { storageFailure } from "../../src/store/storage-errors.ts";
import { tempDir } from "../helpers/server.ts";

const thrown = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
};

test("ENOSPC from the filesystem, SQLITE_FULL and SQLITE_READONLY from SQLite are recognised", () => {
  using dir = tempDir();
  const full = thrown(() => {
    const fd = openSync("/dev/full", "w");
    try {
      writeSync(fd, new Uint8Array(16));
    } finally {
      closeSync(fd);
    }
  });
  const path = join(dir.path, "x.sqlite");
  const db = new Database(path, { create: true });
  db.run("CREATE TABLE t (v BLOB)");
  db.run("PRAGMA max_page_count = 8");
  const sqliteFull = thrown(() => {
    for (;;) db.run("INSERT INTO t VALUES (zeroblob(4096))");
  });
  db.close();
  const ro = new Database(path, { readonly: true });
  const readOnly = thrown(() => ro.run("INSERT INTO t VALUES (1)"));
  ro.close();

  expect([storageFailure(full), storageFailure(sqliteFull), storageFailure(readOnly)]).toEqual(["full", "full", "readonly"]);
});

test("LanceDB's text, causes and read-only filesystems are recognised; other errors are not", () => {
  const lance = new Error("lance error: IO error: Generic LocalFileSystem error: No space left on device (os error 28), /usr/local/cargo/registry/src/x.rs:1:1");
  const wrapped = new Error("could not write the batch", { cause: Object.assign(new Error("EROFS: read-only file system, open '/data/x'"), { code: "EROFS" }) });
  const others = [new Error("Unexpected token < in JSON"), new TypeError("x is undefined"), "a string", null, undefined, { code: "ENOENT" }];
  expect([storageFailure(lance), storageFailure(wrapped)]).toEqual(["full", "readonly"]);
  expect(others.map(storageFailure)).toEqual(others.map(() => null));
});
