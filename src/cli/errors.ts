/**
 * The CLI's two kinds of refusal, each told as one line on stderr without a stack:
 * UsageError — the command line itself is wrong (unknown flag, missing or extra argument, a value
 * of the wrong form); the command's usage follows and the exit code is 2.
 * CliFailure — the command line is well formed but the work cannot be done (a file that does not
 * exist, an unknown organization, an unreachable URL, an address that cannot be bound); exit 1.
 */
export class UsageError extends Error {}
export class CliFailure extends Error {}

/** Plain words for the errno codes a file or directory flag meets. */
export function fsReason(e: unknown): string | undefined {
  const code = (e as { code?: string })?.code;
  return (
    {
      ENOENT: "it does not exist",
      ENOTDIR: "a part of the path is not a directory",
      EACCES: "permission denied",
      EPERM: "permission denied",
      EISDIR: "it is a directory",
      EROFS: "read-only file system",
      ENOSPC: "no space left on the device",
      ELOOP: "too many symbolic links",
      ENAMETOOLONG: "the name is too long",
    } as Record<string, string>
  )[code ?? ""];
}
