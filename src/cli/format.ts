/**
 * Plain-text output helpers: heartbeat ages and aligned columns. Output for people; scripts
 * use `--json`.
 */

/** Seconds since `timestamp` (an `xsd:dateTime` lexical form), or undefined without a parsable one. */
export function ageSeconds(timestamp: string | undefined, now: Date): number | undefined {
  if (timestamp === undefined) return undefined;
  const at = Date.parse(timestamp);
  return Number.isNaN(at) ? undefined : Math.round((now.getTime() - at) / 1000);
}

/**
 * A short age: `12s ago`, `3m 4s ago`, `2h 5m ago`, `3d 1h ago`; `never` without a heartbeat.
 * A timestamp ahead of this machine's clock reads `in the future (clock skew)`.
 * @example formatAge(185) // '3m 5s ago'
 */
export function formatAge(seconds: number | undefined): string {
  if (seconds === undefined) return 'never';
  if (seconds < 0) return 'in the future (clock skew)';
  const units: [number, string][] = [
    [86_400, 'd'],
    [3_600, 'h'],
    [60, 'm'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size) {
      const [next, nextUnit] = units[units.findIndex(([s]) => s === size) + 1] ?? [1, 's'];
      const rest = Math.floor((seconds % size) / next);
      return `${Math.floor(seconds / size)}${unit}${rest > 0 ? ` ${rest}${nextUnit}` : ''} ago`;
    }
  }
  return `${seconds}s ago`;
}

/** Rows as columns padded to their widest cell, two spaces apart, one line each. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}
