// Sizes and durations in the words of a failure reason ("200 MiB", "120 s").
export const formatSeconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
export function formatBytes(n: number): string {
  if (n < 2 ** 20) return `${n} bytes`;
  const gib = n / 2 ** 30;
  return gib >= 1 ? `${Number(gib.toFixed(1))} GiB` : `${Math.round(n / 2 ** 20)} MiB`;
}
