/**
 * `Object.assign` for objects that came from JSON or a query string: each source's own
 * enumerable keys are copied as data properties, so a `"__proto__"` key stays a key (as JSON.parse
 * and a spread keep it) instead of replacing the target's prototype, which assignment does. As
 * fast as `Object.assign` when no source has that key, the usual case.
 * @example assignOwn({}, JSON.parse('{"__proto__": {"admin": true}}')); // { ['__proto__']: { admin: true } }, prototype untouched
 */
export function assignOwn<T extends object>(target: T, ...sources: readonly (object | null | undefined)[]): T {
  for (const source of sources) {
    if (source == null) continue;
    if (!Object.hasOwn(source, '__proto__')) {
      Object.assign(target, source);
      continue;
    }
    for (const key of Object.keys(source))
      Object.defineProperty(target, key, {
        value: (source as Record<string, unknown>)[key],
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return target;
}
