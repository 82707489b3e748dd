/**
 * Field paths as apply conflicts print them (`.data.key`,
 * `.spec.containers[name="app"].image`, `[=value]`, `[3]`), and reading or
 * changing the value at such a path in a plain object or a YAML document.
 */
import { isMap, isSeq, type Document } from 'yaml';

export type PathElement =
  | { type: 'field'; name: string }
  | { type: 'key'; fields: [string, unknown][] }
  | { type: 'value'; value: unknown }
  | { type: 'index'; index: number };

/** Parses a printed field path; undefined when it is not one. */
export function parseFieldPath(text: string): PathElement[] | undefined {
  const path: PathElement[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] === '.') {
      const match = /^\.([^.[]+)/.exec(text.slice(at));
      if (!match) return undefined;
      path.push({ type: 'field', name: match[1]! });
      at += match[0].length;
    } else if (text[at] === '[') {
      const end = closingBracket(text, at);
      if (end < 0) return undefined;
      const inner = text.slice(at + 1, end);
      at = end + 1;
      if (/^\d+$/.test(inner)) path.push({ type: 'index', index: Number(inner) });
      else if (inner.startsWith('=')) path.push({ type: 'value', value: JSON.parse(inner.slice(1)) });
      else {
        const fields = keyFields(inner);
        if (!fields) return undefined;
        path.push({ type: 'key', fields });
      }
    } else return undefined;
  }
  return path;
}

/** The end of a bracket, skipping brackets inside JSON strings. */
function closingBracket(text: string, open: number): number {
  let inString = false;
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0 && c === ']') return i;
    }
  }
  return -1;
}

/** `name="app",port=80` as JSON: wrap into an object by quoting the names. */
function keyFields(inner: string): [string, unknown][] | undefined {
  try {
    const json = `{${inner.replace(/(^|,)([A-Za-z0-9_$-]+)=/g, '$1"$2":')}}`;
    return Object.entries(JSON.parse(json) as Record<string, unknown>);
  } catch {
    return undefined;
  }
}

function itemIndex(list: readonly unknown[], element: PathElement): number {
  switch (element.type) {
    case 'index':
      return element.index;
    case 'value':
      return list.findIndex((item) => JSON.stringify(item) === JSON.stringify(element.value));
    case 'key':
      return list.findIndex(
        (item) => typeof item === 'object' && item !== null && element.fields.every(([k, v]) => JSON.stringify((item as Record<string, unknown>)[k]) === JSON.stringify(v)),
      );
    case 'field':
      return -1;
  }
}

/** The value at a path in plain data, or undefined when absent. */
export function valueAt(data: unknown, path: readonly PathElement[]): unknown {
  let current = data;
  for (const element of path) {
    if (element.type === 'field') {
      if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
      current = (current as Record<string, unknown>)[element.name];
    } else {
      if (!Array.isArray(current)) return undefined;
      const i = itemIndex(current, element);
      if (i < 0) return undefined;
      current = current[i];
    }
  }
  return current;
}

/** The YAML document's key path (map keys and sequence indexes) for a field path, or undefined when absent there. */
export function documentPath(document: Document, path: readonly PathElement[]): (string | number)[] | undefined {
  const keys: (string | number)[] = [];
  let node: unknown = document.contents;
  for (const element of path) {
    if (element.type === 'field') {
      if (!isMap(node) || !node.has(element.name)) return undefined;
      keys.push(element.name);
      node = node.get(element.name, true);
    } else {
      if (!isSeq(node)) return undefined;
      const i = itemIndex(node.toJSON() as unknown[], element);
      if (i < 0) return undefined;
      keys.push(i);
      node = node.get(i, true);
    }
  }
  return keys;
}
