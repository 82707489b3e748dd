// Property-name escaping for CEL field access (apiextensions' Escape):
// keywords become __{keyword}__; __ . - / become __underscores__, __dot__,
// __dash__, __slash__; other names outside [a-zA-Z_.-/][a-zA-Z0-9_.-/]* are
// not accessible.

const RESERVED = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let',
  'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

const ACCESSIBLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;

/** The CEL field name for a property, or undefined when it cannot be accessed. */
export function escapePropertyName(name: string): string | undefined {
  if (RESERVED.has(name)) return `__${name}__`;
  if (!ACCESSIBLE.test(name)) return undefined;
  return name.replace(/__/g, '__underscores__').replace(/\./g, '__dot__').replace(/-/g, '__dash__').replace(/\//g, '__slash__');
}

/** Inverse of escapePropertyName. */
export function unescapePropertyName(escaped: string): string {
  const kw = /^__([a-z]+)__$/.exec(escaped);
  if (kw && RESERVED.has(kw[1]!)) return kw[1]!;
  return escaped.replace(/__(underscores|dot|dash|slash)__/g, (_, w: string) => ({ underscores: '__', dot: '.', dash: '-', slash: '/' })[w]!);
}
