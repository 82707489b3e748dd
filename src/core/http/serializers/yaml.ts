import { parseAllDocuments, stringify } from 'yaml';
import { newBadRequest } from '../../errors';
import { maxNestingDepth, nestingDepth } from './json';
import type { Serializer } from './types';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function parseYaml(text: string): unknown {
  const docs = parseAllDocuments(text, { uniqueKeys: false });
  const list = Array.isArray(docs) ? docs : [docs];
  const first = list.find((d) => d.contents !== null) ?? list[0];
  if (!first) return null;
  if (first.errors.length) {
    const err = first.errors[0]!;
    const line = err.linePos?.[0]?.line;
    throw newBadRequest(`error converting YAML to JSON: yaml: ${line ? `line ${line}: ` : ''}${err.message.split('\n')[0]}`);
  }
  let value: unknown;
  try {
    value = first.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw newBadRequest(`error converting YAML to JSON: yaml: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (nestingDepth(value) > maxNestingDepth) throw newBadRequest(`error converting YAML to JSON: exceeded max depth of ${maxNestingDepth}`);
  return value;
}

export const yamlSerializer: Serializer = {
  mediaType: 'application/yaml',
  binary: false,
  encode(obj) {
    // sigs.k8s.io/yaml goes through JSON maps, so kube-apiserver's YAML has sorted keys.
    return encoder.encode(stringify(obj, { lineWidth: 0, aliasDuplicateObjects: false, sortMapEntries: true }));
  },
  decode(body) {
    return parseYaml(decoder.decode(body));
  },
};
