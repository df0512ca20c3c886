// Text progress bar for `kbqa models fetch` (the CLI redraws it with "\r").
function human(bytes: number): string {
  const units = ["B", "KB", "MB", "GB"];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u++; }
  return `${v.toFixed(u ? 1 : 0)} ${units[u]}`;
}

export function formatProgressBar(p: { file: string; done: number; total: number }, width = 30): string {
  if (!p.total) return `${p.file} ${human(p.done)}`;
  const ratio = Math.min(1, p.done / p.total);
  const filled = Math.round(ratio * width);
  return `${p.file} [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${Math.floor(ratio * 100)}% ${human(p.done)}/${human(p.total)}`;
}
