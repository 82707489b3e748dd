/**
 * A JSON syntax tree that keeps what JSON.parse throws away and Go's decoder
 * still sees: repeated keys (in document order) and number literals as written
 * (`1.0`, `1e3`), which Go's error messages quote verbatim.
 */

export type JsonNode =
  | { t: 'object'; entries: [string, JsonNode][] }
  | { t: 'array'; items: JsonNode[] }
  | { t: 'string'; v: string }
  | { t: 'number'; raw: string }
  | { t: 'bool'; v: boolean }
  | { t: 'null' };

export class JsonSyntaxError extends Error {}

/** Parses one JSON text; throws JsonSyntaxError on anything JSON.parse would reject. */
export function parseJsonTree(text: string): JsonNode {
  let i = 0;
  const n = text.length;
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
      else break;
    }
  };
  const fail = (): never => {
    throw new JsonSyntaxError(`invalid JSON at offset ${i}`);
  };
  const str = (): string => {
    // Find the closing quote, then let JSON.parse handle escapes of that slice.
    const start = i;
    i++;
    let escaped = false;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 0x22) break;
      if (c < 0x20) fail();
      i++;
    }
    if (i >= n) fail();
    i++;
    const slice = text.slice(start, i);
    if (!escaped) return slice.slice(1, -1);
    try {
      return JSON.parse(slice) as string;
    } catch {
      return fail();
    }
  };
  const value = (depth: number): JsonNode => {
    if (depth > 10000) fail();
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries: [string, JsonNode][] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { t: 'object', entries };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = str();
        ws();
        if (text[i] !== ':') fail();
        i++;
        entries.push([key, value(depth + 1)]);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { t: 'object', entries };
        }
        fail();
      }
    }
    if (c === '[') {
      i++;
      const items: JsonNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { t: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { t: 'array', items };
        }
        fail();
      }
    }
    if (c === '"') return { t: 'string', v: str() };
    if (text.startsWith('true', i)) {
      i += 4;
      return { t: 'bool', v: true };
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return { t: 'bool', v: false };
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return { t: 'null' };
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail();
    i += m[0].length;
    return { t: 'number', raw: m[0] };
  };
  if (text.charCodeAt(0) === 0xfeff) i = 1;
  const root = value(0);
  ws();
  if (i !== n) fail();
  return root;
}

/**
 * The tree of an already decoded value, with object keys sorted: the order in
 * which Go decodes a body that went through a map first (YAML converted to
 * JSON, a patched object re-encoded).
 */
export function treeOf(value: unknown): JsonNode {
  if (value === null || value === undefined) return { t: 'null' };
  if (typeof value === 'string') return { t: 'string', v: value };
  if (typeof value === 'boolean') return { t: 'bool', v: value };
  if (typeof value === 'number' || typeof value === 'bigint') return { t: 'number', raw: String(value) };
  if (Array.isArray(value)) return { t: 'array', items: value.map(treeOf) };
  if (value instanceof Date) return { t: 'string', v: value.toISOString() };
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort(compareGoStrings);
  return { t: 'object', entries: keys.map((k) => [k, treeOf(obj[k])]) };
}

/** Go sorts map keys by bytes; for UTF-16 strings code-point order is the same except around surrogates, which is close enough. */
export function compareGoStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
