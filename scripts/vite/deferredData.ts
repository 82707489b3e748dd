/**
 * Build only: ships large JSON tables of the core as files of their own
 * instead of inside a script. Each listed JSON module (or each listed field
 * of it) is replaced by `{ deferredUrl }`, the URL of a content-hashed copy
 * emitted under assets/; the core's DeferredData fetches it when a request
 * first needs it (src/core/util/deferredData.ts), and the worker keeps it in
 * Cache Storage (src/sw/dataCache.ts). Under the dev server and in Node the
 * JSON is imported as it is.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

interface DeferredJson {
  /** Absolute path of the JSON module. */
  file: string;
  /** Defer only these top-level fields, each as a file of its own; the rest stays in the script. */
  fields?: string[];
}

const PREFIX = '\0kubesim-deferred:';
const at = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

/** The core's tables the worker's first answer does not need: fetched when a request first reads them. */
export const DEFERRED_CORE_DATA: DeferredJson[] = [
  { file: at('src/core/registry/generated/registry.json'), fields: ['definitions', 'operationParameters'] },
  { file: at('src/core/http/serializers/protobuf/generated/descriptor.json') },
  { file: at('src/core/printers/descriptions.json') },
  { file: at('src/core/auth/rbac/generated/bootstrapPolicy.json') },
];

export function deferredDataPlugin(entries: DeferredJson[]): Plugin {
  const byFile = new Map(entries.map((e) => [e.file, e]));
  let base = '/';
  return {
    name: 'kubesim:deferred-data',
    apply: 'build',
    enforce: 'pre',
    configResolved(config) {
      base = config.base;
    },
    async resolveId(source, importer, options) {
      if (!source.endsWith('.json') || !importer) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      // A virtual id that does not end in .json, so Vite's JSON plugin leaves the module below alone.
      return resolved && byFile.has(resolved.id) ? `${PREFIX}${resolved.id}.js` : null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const file = id.slice(PREFIX.length, -'.js'.length);
      const entry = byFile.get(file)!;
      const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      const emit = (value: unknown, suffix: string) => {
        const text = JSON.stringify(value);
        const hash = createHash('sha256').update(text).digest('hex').slice(0, 10);
        const fileName = `assets/${basename(file, '.json')}${suffix}-${hash}.json`;
        this.emitFile({ type: 'asset', fileName, source: text });
        return { deferredUrl: `${base}${fileName}` };
      };
      const value = entry.fields ? { ...json, ...Object.fromEntries(entry.fields.map((f) => [f, emit(json[f], `.${f}`)])) } : emit(json, '');
      return `export default ${JSON.stringify(value)};`;
    },
  };
}
