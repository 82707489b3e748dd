/**
 * The production service worker: src/sw/worker.ts built on its own, after
 * the workbench, into the same directory, as a classic worker made of
 * CommonJS chunks that src/sw/chunkLoader.ts runs:
 *
 *  - sw.js: the loader, the chunk manifest and the entry chunk;
 *  - assets/sw-*.js: the core chunks (evaluated at every start of the
 *    worker) and the parts (PARTS below: imported while the worker installs,
 *    run the first time a request calls into them).
 *
 * Each part is a set of modules only the requests that need it reach: the
 * kinds' validation and the field manager for writes, CEL and RE2 for
 * validation rules and policies, the protobuf codec for protobuf, the
 * printers for Tables. The Node host and the dev server load everything as
 * plain modules.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build, transformWithOxc, type Plugin, type Rolldown } from 'vite';
import type { ChunkManifest } from '../../src/sw/chunkLoader';
import { DEFERRED_CORE_DATA, deferredDataPlugin } from './deferredData.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SEP = String.raw`[\\/]`;
const under = (...dirs: string[]) => new RegExp(`${SEP}(?:${dirs.map((d) => d.split('/').join(SEP)).join('|')})${SEP}`);

interface Part {
  name: string;
  /** The modules of the part, by path. */
  test: RegExp;
  /** Modules under `test` that the core reads at start (tables, constants), which stay in the core. */
  keep?: RegExp;
}

/** Parts of the core loaded on first use, each a chunk of its own (sw-<name>-<hash>.js). */
export const PARTS: Part[] = [
  { name: 're2', test: under('node_modules/re2js') },
  { name: 'yaml', test: under('node_modules/yaml') },
  { name: 'cel', test: under('src/core/cel') },
  {
    name: 'protobuf',
    test: /[\\/](?:src[\\/]core[\\/]http[\\/]serializers[\\/]protobuf[\\/]|src[\\/]core[\\/]ops[\\/]metricsProtobuf\.ts$|node_modules[\\/](?:protobufjs|long|@protobufjs)[\\/])/,
    // The kind table, messageNameFor and the descriptor's DeferredData: every request asks whether its kind has a message.
    keep: /[\\/]protobuf[\\/](?:generated[\\/]|messageNames\.ts$)/,
  },
  { name: 'cbor', test: under('src/core/http/serializers/cbor') },
  // The API groups' folders and their table (validation/index.ts); names, labels and field paths stay in the core.
  { name: 'validation', test: /[\\/]src[\\/]core[\\/]validation[\\/](?:[a-z]+[\\/]|index\.ts$)/ },
  { name: 'fieldmanager', test: under('src/core/fieldmanager') },
  { name: 'patch', test: under('src/core/patch', 'node_modules/fast-json-patch') },
  { name: 'printers', test: under('src/core/printers') },
  { name: 'openapi', test: under('src/core/openapi') },
  { name: 'upgrade', test: under('src/core/upgrade') },
  // JOSE, and the JWT authenticator of --authentication-config's issuers (service account tokens are verified with jose alone).
  { name: 'jose', test: /[\\/](?:node_modules[\\/]jose[\\/]|src[\\/]core[\\/]auth[\\/]authenticator[\\/]jwt\.ts$)/ },
  // The Node authorizer, NodeRestriction and node-bound token requests: built when --authorization-mode names Node.
  { name: 'node', test: under('src/core/auth/node') },
  // TokenReview, SubjectAccessReview and the self reviews.
  { name: 'reviews', test: /[\\/]src[\\/]core[\\/]http[\\/]handlers[\\/](?:reviews|authorizationReviews|authenticationReviews)\.ts$/ },
  // The scale, eviction and binding subresources, and connect's (log, exec, attach, portforward, the proxies).
  { name: 'subresources', test: /[\\/]src[\\/]core[\\/](?:http[\\/]handlers[\\/](?:scale|eviction|binding|connect)|registry[\\/]core[\\/](?:podBinding|podLocation))\.ts$/ },
  // Pod Security Standards checks, evaluated on pod writes; quota arithmetic and evaluators, used where quotas or limit ranges exist.
  { name: 'podsecurity', test: under('src/core/admission/podSecurity/policy') },
  { name: 'quota', test: under('src/core/quota') },
  // Admission webhook calls (AdmissionReview, the dispatcher and its client), run once a webhook configuration exists.
  { name: 'webhooks', test: /[\\/]src[\\/]core[\\/]admission[\\/]webhook[\\/](?:dispatcher|review|client|errors)\.ts$/ },
  // kube-controller-manager's controllers and the simulated nodes, started after the worker's first answer
  // (src/sw/afterFirstAnswer.ts), with the schedule parsing only they and CronJob validation use. The CRD controller
  // (stored CRDs are served before the first answer), the service account controller (default ServiceAccounts exist
  // before it), ClusterRole aggregation (started with RBAC), kube-apiserver's APIService autoregistration and local
  // availability (run before the first answer, as /readyz waits for them), the leader elector, the informer and work
  // queue they share and the controller names stay in the core. The containers' checksum tools bring their hashes.
  {
    name: 'controllers',
    test: /[\\/](?:src[\\/]core[\\/](?:controllers[\\/](?!(?:crd|serviceAccount|clusterRoleAggregation|autoregister|apiServiceAvailable|leaderElection|informer|workqueue|names)\.ts$)\w+\.ts$|simulation[\\/]\w+\.ts$|util[\\/](?:cronSchedule|zonedTime)\.ts$)|node_modules[\\/]@noble[\\/])/,
  },
  // X.509 and PKCS#10 (CSR validation, the signer, the cluster CA's first generation).
  { name: 'x509', test: under('node_modules/@peculiar', 'node_modules/tsyringe', 'node_modules/reflect-metadata', 'node_modules/asn1js', 'node_modules/pvtsutils', 'node_modules/pvutils') },
];

const DEFINE = 'kubesimChunks';
const LOADER = fileURLToPath(new URL('../../src/sw/chunkLoader.ts', import.meta.url));

/** src/sw/chunkLoader.ts as a script: its types stripped, its one function declared globally. */
async function loaderScript(): Promise<string> {
  const { code } = await transformWithOxc(await readFile(LOADER, 'utf8'), LOADER, { lang: 'ts' });
  if (/^\s*import\s/m.test(code)) throw new Error(`${LOADER} must import nothing: it runs before any chunk`);
  return code.replace(/^export /gm, '');
}

/** Wraps every chunk in `define(path, factory)` and puts the loader and the manifest in front of the entry. */
function chunkLoaderPlugin(): Plugin {
  return {
    name: 'kubesim:chunk-loader',
    apply: 'build',
    async generateBundle(_, bundle) {
      const loader = await loaderScript();
      const chunks = Object.values(bundle).filter((c): c is Rolldown.OutputChunk => c.type === 'chunk');
      const partNames = new Set(PARTS.map((p) => p.name));
      const isPart = (c: Rolldown.OutputChunk) => partNames.has(c.name);
      const manifest: ChunkManifest = {
        core: chunks.filter((c) => !c.isEntry && !isPart(c)).map((c) => c.fileName),
        parts: chunks.filter(isPart).map((c) => c.fileName),
      };
      for (const chunk of chunks) {
        const header = chunk.isEntry
          ? `${loader}\nvar ${DEFINE} = createChunkLoader(self, ${JSON.stringify(manifest)});\n`
          : '';
        const open = `${DEFINE}.define(${JSON.stringify(chunk.fileName)}, function (require, module, exports) {\n`;
        const close = chunk.isEntry ? `\n});\n${DEFINE}.require(${JSON.stringify(chunk.fileName)});\n` : '\n});\n';
        const mapComment = /\n\/\/# sourceMappingURL=[^\n]*\n?$/.exec(chunk.code)?.[0] ?? '';
        const body = mapComment ? chunk.code.slice(0, -mapComment.length) : chunk.code;
        const prefix = header + open;
        chunk.code = prefix + body + close + mapComment.trimStart();
        // The prefix adds whole lines: shift the source map down by as many.
        const lines = prefix.split('\n').length - 1;
        if (chunk.map) chunk.map.mappings = ';'.repeat(lines) + chunk.map.mappings;
        const mapAsset = bundle[`${chunk.fileName}.map`];
        if (mapAsset?.type === 'asset' && typeof mapAsset.source === 'string') {
          const map = JSON.parse(mapAsset.source) as { mappings: string };
          map.mappings = ';'.repeat(lines) + map.mappings;
          mapAsset.source = JSON.stringify(map);
        }
      }
    },
  };
}

export interface ServiceWorkerBuildOptions {
  outDir: string;
  define: Record<string, string>;
  logLevel?: 'info' | 'warn' | 'error' | 'silent';
}

export async function buildServiceWorker(options: ServiceWorkerBuildOptions): Promise<void> {
  await build({
    root,
    configFile: false,
    logLevel: options.logLevel ?? 'warn',
    define: options.define,
    plugins: [deferredDataPlugin(DEFERRED_CORE_DATA), chunkLoaderPlugin()],
    build: {
      outDir: options.outDir,
      emptyOutDir: false,
      copyPublicDir: false,
      target: 'es2022',
      sourcemap: true,
      // KUBESIM_SW_MINIFY=0 keeps names readable when tracing which code reaches into a part.
      minify: process.env.KUBESIM_SW_MINIFY !== '0',
      // The whole API server; what the first answer does not need is in parts, loaded on first use.
      chunkSizeWarningLimit: 3072,
      rolldownOptions: {
        input: { sw: fileURLToPath(new URL('../../src/sw/worker.ts', import.meta.url)) },
        // The in-process client (exported beside createApiServer) is not used by the worker; its light Request links its
        // prototypes to the Fetch ones at load, which would otherwise keep it in the worker as a side effect.
        treeshake: { moduleSideEffects: (id: string) => !/[\\/]src[\\/]core[\\/](?:client[\\/]|http[\\/]lightRequest\.ts$)/.test(id) },
        output: {
          format: 'cjs',
          entryFileNames: 'sw.js',
          chunkFileNames: 'assets/sw-[name]-[hash].js',
          codeSplitting: {
            groups: PARTS.map((p) => ({ name: p.name, test: (id: string) => p.test.test(id) && !p.keep?.test(id), includeDependenciesRecursively: false })),
          },
        },
      },
    },
  });
}

/** Builds the service worker after the workbench, into the same directory, with the same defines (the build id). */
export function serviceWorkerBuildPlugin(define: Record<string, string>): Plugin {
  let outDir = '';
  let logLevel: ServiceWorkerBuildOptions['logLevel'];
  return {
    name: 'kubesim:service-worker-build',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
      logLevel = config.logLevel;
    },
    async closeBundle() {
      await buildServiceWorker({ outDir, define, logLevel });
    },
  };
}
