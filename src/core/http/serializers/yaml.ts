import { parseAllDocuments, stringify } from 'yaml';
import { newBadRequest } from '../../errors';
import { maxNestingDepth, nestingDepth } from './json';
import type { Serializer } from './types';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * How deep flow collections may nest in a YAML body. kube-apiserver's YAML
 * decoder allows 10,000 levels; the parser here recurses several frames per
 * level and runs out of stack near 800, and when that happens inside a regular
 * expression it runs, the process dies instead of throwing. So a body nested
 * past this is refused before it is parsed. No manifest comes near it.
 */
export const maxYamlFlowDepth = 512;

/**
 * The deepest nesting of flow collections (`[`, `{`) outside quotes and
 * comments: an upper bound of what they nest to.
 */
function flowNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let quote = '';
  let comment = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (comment) {
      if (c === 10) comment = false;
    } else if (quote) {
      if (quote === '"' && c === 92) i++; // backslash escape
      else if (text[i] === quote) quote = '';
    } else if (c === 34 || c === 39) quote = text[i]!;
    else if (c === 35 && (i === 0 || text.charCodeAt(i - 1) <= 32)) comment = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) max = depth;
    } else if ((c === 93 || c === 125) && depth > 0) depth--;
  }
  return max;
}

export function parseYaml(text: string): unknown {
  // Deeper than the limit takes more brackets than the limit: shorter texts need no scan.
  if (text.length > maxYamlFlowDepth && flowNestingDepth(text) > maxYamlFlowDepth) {
    throw newBadRequest(`error converting YAML to JSON: yaml: flow collections nested deeper than ${maxYamlFlowDepth} levels (the limit of kubesim's YAML parser; send JSON for deeper documents)`);
  }
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
