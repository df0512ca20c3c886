/**
 * Gives memory an idle server holds back to the operating system (idle.ts decides when):
 * 1. only with `gc`, a full synchronous garbage collection. The server does not ask for it: after
 *    100 documents it returned ~5 MB, and the next question took ~50–100 ms longer (measured;
 *    likely compiled code discarded by the collection, so the request after it runs cold);
 * 2. glibc's malloc_trim(0): native libraries (LanceDB's Rust code, SQLite) allocate through
 *    glibc, whose per-thread arenas keep freed pages otherwise;
 * 3. with `codePages`, drops this process's mappings of clean, read-only pages of its program
 *    files (the code of the executable and of the LanceDB addon, ~150 MB of RSS once warm). It
 *    is what the kernel does itself to such pages under memory pressure, minus evicting them:
 *    they stay in the page cache and come back on use as minor faults (~500 on the next
 *    question, ~5 ms).
 *    Only private mappings without write permission and without dirty pages are touched, since
 *    MADV_DONTNEED on a dirty private page would revert it to the file's bytes.
 * Steps 2 and 3 need Linux; each step that is unavailable is skipped.
 */
import { readFileSync } from "node:fs";

export interface ReleaseReport {
  /** VmRSS in bytes before and after (0 where /proc is unavailable). */
  rssBefore: number;
  rssAfter: number;
  gcMs: number;
  /** Whether malloc_trim ran and reported memory given back. */
  trimmed: boolean;
  /** Resident bytes of the code mappings dropped (0 without `codePages`). */
  codeBytes: number;
  ms: number;
}

const MADV_DONTNEED = 4;
/** Mappings smaller than this are left alone: not worth a system call each. */
const MIN_MAPPING_RSS = 256 * 1024;

interface Libc {
  madvise?: (addr: number, len: number, advice: number) => number;
  mallocTrim?: (pad: number) => number;
}

let libc: Libc | undefined;

/** bun:ffi is loaded on first use, not at start: it is only needed once the server goes idle. */
async function loadLibc(): Promise<Libc> {
  if (libc) return libc;
  libc = {};
  if (process.platform !== "linux") return libc;
  try {
    const { dlopen, FFIType } = await import("bun:ffi");
    // Two opens: musl has madvise but no malloc_trim, and a missing symbol fails the whole open.
    try {
      const m = dlopen("libc.so.6", { madvise: { args: [FFIType.u64, FFIType.u64, FFIType.i32], returns: FFIType.i32 } });
      libc.madvise = (a, l, adv) => m.symbols.madvise(a, l, adv);
      const t = dlopen("libc.so.6", { malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 } });
      libc.mallocTrim = (pad) => t.symbols.malloc_trim(pad);
    } catch {
      // not glibc: keep what opened
    }
  } catch {
    // no FFI on this build
  }
  return libc;
}

export function rssOfSelf(): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export interface CodeMapping { start: number; end: number; rss: number }

/**
 * Clean, private, non-writable mappings of program files (the executable and the shared
 * libraries: files with an executable mapping) from /proc/<pid>/smaps text: those whose resident
 * pages are all identical to the file, so dropping them loses nothing. Data files (a model,
 * an index) are left alone: their pages are the next request's working set.
 */
export function cleanFileMappings(smaps: string, minRss = MIN_MAPPING_RSS): CodeMapping[] {
  const all: (CodeMapping & { name: string; ok: boolean; dirty: number })[] = [];
  const programs = new Set<string>();
  let cur: (typeof all)[number] | undefined;
  for (const line of smaps.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const [, s, e, perms, inode, name] = head;
      const file = inode !== "0" && name!.startsWith("/");
      if (file && perms![2] === "x") programs.add(name!);
      // Private and not writable now. Read-only mappings can still hold dirty pages (RELRO after
      // relocation): the dirty count below excludes those.
      cur = { start: parseInt(s!, 16), end: parseInt(e!, 16), rss: 0, name: name!, ok: file && perms![1] !== "w" && perms![3] === "p", dirty: 0 };
      all.push(cur);
      continue;
    }
    const f = cur && /^(Rss|Private_Dirty|Shared_Dirty|Swap):\s+(\d+) kB/.exec(line);
    if (!cur || !f) continue;
    const bytes = Number(f[2]) * 1024;
    if (f[1] === "Rss") cur.rss = bytes;
    else cur.dirty += bytes;
  }
  return all
    .filter((m) => m.ok && m.dirty === 0 && m.rss >= minRss && programs.has(m.name))
    .map(({ start, end, rss }) => ({ start, end, rss }));
}

export async function releaseMemory(opts: { gc?: boolean; codePages?: boolean } = {}): Promise<ReleaseReport> {
  const t0 = performance.now();
  const rssBefore = rssOfSelf();
  if (opts.gc) Bun.gc(true);
  const gcMs = performance.now() - t0;
  const c = await loadLibc();
  let trimmed = false;
  try {
    trimmed = c.mallocTrim ? c.mallocTrim(0) === 1 : false;
  } catch {
    // keep going: the other steps do not depend on it
  }
  let codeBytes = 0;
  if (opts.codePages && c.madvise) {
    let smaps = "";
    try {
      smaps = readFileSync("/proc/self/smaps", "utf8");
    } catch {
      // no /proc: nothing to drop
    }
    for (const m of cleanFileMappings(smaps)) {
      if (c.madvise(m.start, m.end - m.start, MADV_DONTNEED) === 0) codeBytes += m.rss;
    }
  }
  return { rssBefore, rssAfter: rssOfSelf(), gcMs, trimmed, codeBytes, ms: performance.now() - t0 };
}
