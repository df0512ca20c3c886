import { accessSync, constants, mkdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { CliFailure, fsReason } from "./errors.ts";

/**
 * The directory named by a flag (label: "--data" or "--data (KBQA_DATA_DIR)"). "create" makes a
 * missing one (commands that write: serve, org create); "existing" refuses a missing one, so a
 * read-only command or a typo never leaves an empty directory tree behind; "optional" accepts a
 * missing one (a missing models folder means no model files). Something that is not a directory
 * is refused in every mode.
 */
export function checkDir(label: string, dir: string, mode: "create" | "existing" | "optional"): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ENOTDIR") throw new CliFailure(`${label}: ${dir} is not a directory (a part of the path is a file)`);
    if (code !== "ENOENT") throw new CliFailure(`${label}: cannot use ${dir} (${fsReason(e) ?? code})`);
    if (mode === "optional") return;
    if (mode === "existing") throw new CliFailure(`${label}: ${dir} does not exist (kbqa serve or kbqa org create makes it)`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (e2) {
      throw new CliFailure(`${label}: cannot create ${dir} (${fsReason(e2) ?? (e2 as { code?: string }).code})`);
    }
    return;
  }
  if (!isDir) throw new CliFailure(`${label}: ${dir} is not a directory`);
}

const SQLITE_CANTOPEN = 14;

/**
 * Why SQLite could not open a file of the data directory, in words, or undefined when the error is
 * another or access does not explain it. SQLite says only "unable to open database file" (with a
 * stack, it was all a `serve` on a read-only, empty directory or on another user's directory
 * printed), whether the directory is on a read-only volume, is not this user's to write, or holds
 * a database file another user created (a server started once as root, then as its service user).
 */
export function dataDirOpenFailure(e: unknown, dir: string): string | undefined {
  const errno = (e as { name?: unknown; errno?: unknown })?.name === "SQLiteError" ? (e as { errno?: unknown }).errno : undefined;
  if (typeof errno !== "number" || (errno & 0xff) !== SQLITE_CANTOPEN) return undefined;
  const files = ["kbqa.sqlite", "kbqa.sqlite-wal", "kbqa.sqlite-shm", "server.lock"];
  for (const path of [dir, ...files.map((f) => join(dir, f))]) {
    try {
      accessSync(path, constants.R_OK | constants.W_OK | (path === dir ? constants.X_OK : 0));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === "ENOENT" && path !== dir) continue;
      const what = path === dir ? "the directory" : basename(path);
      return `cannot open the database in ${dir}: ${what} cannot be written (${fsReason(err) ?? code}${ownerNote(path, code)})`;
    }
  }
  return undefined;
}

/** Whose the refused file is, when that is why: the usual cause is a directory made by another account. */
function ownerNote(path: string, code: string | undefined): string {
  const uid = process.getuid?.();
  if ((code !== "EACCES" && code !== "EPERM") || uid === undefined) return "";
  try {
    const owner = statSync(path).uid;
    return owner === uid ? "" : `; it belongs to uid ${owner} and kbqa runs as uid ${uid}`;
  } catch {
    return "";
  }
}

const PRIVATE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;

/**
 * The text of a --public-key file, refused in plain words when it cannot be read, is not a PEM
 * public key, or holds a private key (which must never be stored on the server). Whether it is a
 * public key, and its kind and size, are checked by addKey. /dev/stdin and other non-regular files are read as they are.
 */
export function readPublicKeyFile(file: string): string {
  let pem: string;
  try {
    if (statSync(file).isDirectory()) throw new CliFailure(`--public-key: ${file} is a directory`);
    pem = readFileSync(file, "utf8");
  } catch (e) {
    if (e instanceof CliFailure) throw e;
    if ((e as { code?: string }).code === "ENOENT") throw new CliFailure(`--public-key: no such file ${file}`);
    throw new CliFailure(`--public-key: cannot read ${file} (${fsReason(e) ?? (e as { code?: string }).code})`);
  }
  if (PRIVATE.test(pem)) {
    throw new CliFailure(`--public-key: ${file} holds a private key, which must stay with you; give its public key (openssl rsa -in ${file} -pubout -out public.pem)`);
  }
  return pem;
}

/** Kids travel in JWT headers and on command lines: a bounded, shell- and log-safe set. */
export const KID = /^[A-Za-z0-9._:-]{1,128}$/;
export const KID_RULE = "must be 1 to 128 characters from A-Z a-z 0-9 . _ - :";
