/**
 * Repeated keys in a raw request body, which decoding into a map or
 * JSON.parse would silently collapse. JSON bodies are checked like
 * sigs.k8s.io/json decoding into map[string]interface{} (every object, paths
 * `spec.containers[0].image`); YAML bodies like go-yaml's strict decoding
 * (`line 5: key "name" already set in map`).
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node as YamlNode } from 'yaml';
import { childPath, StrictErrors } from './decoding';
import { parseJsonTree, type JsonNode } from './jsonTree';

export interface DuplicateKey {
  /** The repeated key's path as upstream prints it (`metadata.name`, `spec.ports[0].port`). */
  path: string;
  key: string;
  /** 1-based line of the repeated occurrence (YAML only). */
  line?: number;
}

/** Duplicate keys anywhere in a JSON tree, in document order, as the unstructured decoder reports them. */
export function jsonTreeDuplicates(node: JsonNode, errs: StrictErrors, prefix = '', path = ''): void {
  if (node.t === 'array') {
    node.items.forEach((item, i) => jsonTreeDuplicates(item, errs, prefix, `${path}[${i}]`));
    return;
  }
  if (node.t !== 'object') return;
  const seen = new Set<string>();
  for (const [key, child] of node.entries) {
    if (seen.has(key)) errs.add('duplicate', childPath(path, key), prefix);
    else seen.add(key);
    jsonTreeDuplicates(child, errs, prefix, childPath(path, key));
  }
}

/** go-yaml's `%#v` of a mapping key: strings quoted, other scalars bare. */
function goKeyText(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Duplicate mapping keys of a YAML document, in document order, with their lines. */
export function yamlDuplicateKeys(text: string): DuplicateKey[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: false });
  const out: DuplicateKey[] = [];
  const visit = (node: unknown, path: string): void => {
    if (isSeq(node)) {
      node.items.forEach((item, i) => visit(item, `${path}[${i}]`));
      return;
    }
    if (!isMap(node)) return;
    const seen = new Set<string>();
    for (const pair of node.items) {
      const keyNode = pair.key as YamlNode | null;
      const key = isScalar(keyNode) ? keyNode.value : keyNode === null ? null : String(keyNode);
      const id = `${typeof key}:${String(key)}`;
      const name = String(key);
      if (seen.has(id)) {
        const offset = isScalar(keyNode) && keyNode.range ? keyNode.range[0] : 0;
        out.push({ path: childPath(path, name), key: goKeyText(key), line: lineCounter.linePos(offset).line });
      } else seen.add(id);
      visit(pair.value, childPath(path, name));
    }
  };
  visit(doc.contents, '');
  return out;
}

/** go-yaml's line messages for duplicate keys: `line 5: key "name" already set in map`. */
export function yamlDuplicateKeyErrors(text: string): string[] {
  return yamlDuplicateKeys(text).map((d) => `line ${d.line}: key ${d.key} already set in map`);
}

/** Paths of repeated keys in a raw body (`metadata.name`, `data.a`), in document order. */
export function findDuplicateFields(text: string, mediaType: 'json' | 'yaml'): string[] {
  if (mediaType === 'yaml') return yamlDuplicateKeys(text).map((d) => d.path);
  const errs = new StrictErrors();
  jsonTreeDuplicates(parseJsonTree(text), errs);
  const prefix = 'duplicate field ';
  return errs.messages.map((m) => JSON.parse(m.slice(prefix.length)) as string);
}
