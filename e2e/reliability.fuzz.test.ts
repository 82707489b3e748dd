/**
 * Bad input against the Node host, generated with fast-check: malformed
 * bodies, headers, paths, query parameters and CEL cost bombs. Every answer
 * to a bad request must be a kube `Status` with a 4xx code (or a 5xx on
 * ALLOWED_5XX, where kube-apiserver answers exactly that), the host must keep
 * serving, and no rejected write may change the store (its revision after
 * every write, a checksum of every key and value at the end).
 *
 * About 10,000 requests by default; KUBESIM_FUZZ_RUNS sets the total.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';
import { expectStatus, rawRequest, recordFigures, storeChecksum, type RawRequest, type RawResponse } from './support/reliability';

const TOTAL = Number(process.env.KUBESIM_FUZZ_RUNS ?? 10_000);
/** Share of the total each group runs. */
const share = (fraction: number) => Math.max(20, Math.round(TOTAL * fraction));
const SEED = Number(process.env.KUBESIM_FUZZ_SEED ?? Date.now() % 2 ** 31);

const NS = 'fuzz';
const CM = `/api/v1/namespaces/${NS}/configmaps`;
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

let t: TestHost;
let baseline: Awaited<ReturnType<typeof storeChecksum>>;
const tally = { requests: 0, byStatus: {} as Record<string, number>, writesRejected: 0 };

/**
 * The only 5xx answers the suite accepts, each because kube-apiserver gives
 * exactly that answer. Any other 5xx fails the suite.
 */
const ALLOWED_5XX: { status: number; message: string; why: string }[] = [
  {
    status: 500,
    message: 'etcdserver: request is too large',
    why: 'an object over the store request limit (--max-request-bytes, 1.5 MiB) but under the 3 MiB body limit: kube-apiserver passes the etcd error on as a 500 with no reason (kubernetes/kubernetes#112152)',
  },
];
/** Every 5xx answer with the request that produced it, for the report. */
const serverErrors: { request: string; status: number; message: string; allowedBecause?: string }[] = [];

/** Counts one answer; a 5xx is recorded with its request and fails the suite unless it is on the allow-list. */
function tallyAnswer(req: RawRequest, res: RawResponse, context: string): void {
  tally.requests++;
  tally.byStatus[res.status] = (tally.byStatus[res.status] ?? 0) + 1;
  if (res.status < 500) return;
  let message = res.body.toString('utf8', 0, 300);
  try {
    message = (JSON.parse(res.body.toString('utf8')) as { message?: string }).message ?? message;
  } catch {
    // Not a Status: the raw text is the message.
  }
  const allowed = ALLOWED_5XX.find((a) => a.status === res.status && a.message === message);
  serverErrors.push({ request: `${context} (${req.method} ${req.path.slice(0, 120)}, ${req.body?.length ?? 0} bytes)`, status: res.status, message, allowedBecause: allowed?.why });
  expect(allowed, `${context}: a ${res.status} not on the allow-list: ${message}`).toBeDefined();
}

beforeAll(async () => {
  t = await startTestHost();
  const created = await fetch(`${t.host.url}/api/v1/namespaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: NS } }) });
  expect(created.status).toBe(201);
  const cm = await fetch(`${t.host.url}${CM}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'target' }, data: { a: '1' } }) });
  expect(cm.status).toBe(201);
  baseline = await storeChecksum(t.host.api.storage);
});

afterAll(async () => {
  await t?.stop();
});

/**
 * A generated bad request: `want` is the exact status when one is known;
 * `plainNotFound` marks a path no API serves (an unknown group), which
 * kube-apiserver's NotFoundHandler answers with Go's http.NotFound, plain text.
 */
type BadRequest = RawRequest & { label: string; want?: number; plainNotFound?: boolean };

/** Sends one bad request and checks the answer and the store; returns the response. */
async function send(req: RawRequest & { want?: number; plainNotFound?: boolean }, context = `${req.method} ${req.path.slice(0, 200)}`): Promise<RawResponse> {
  const before = WRITES.has(req.method) ? await storeChecksum(t.host.api.storage) : undefined;
  const res = await rawRequest(t.host.url, req);
  tallyAnswer(req, res, context);
  expect(res.status, `${context}: ${res.body.toString('utf8', 0, 300)}`).toBeGreaterThanOrEqual(400);
  if (req.plainNotFound) expect({ status: res.status, type: res.headers['content-type'], body: res.body.toString('utf8') }, context).toEqual({ status: 404, type: 'text/plain; charset=utf-8', body: '404 page not found\n' });
  else expectStatus(res, context);
  if (req.want !== undefined) expect(res.status, context).toBe(req.want);
  if (WRITES.has(req.method)) {
    expect(await storeChecksum(t.host.api.storage), `${context} changed the store`).toEqual(before);
    tally.writesRejected++;
  }
  return res;
}

/** The host still answers reads and writes. */
async function stillServing(): Promise<void> {
  const ready = await fetch(`${t.host.url}/readyz`);
  expect(ready.status).toBe(200);
  const got = await fetch(`${t.host.url}${CM}/target`);
  expect(got.status).toBe(200);
  expect(((await got.json()) as { data: Record<string, string> }).data).toEqual({ a: '1' });
}

const runOptions = (numRuns: number) => ({ numRuns, seed: SEED, endOnFailure: true });

// ---- bodies -------------------------------------------------------------

const validConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fresh', namespace: NS, labels: { app: 'x' } }, data: { k: 'v' } };
const validPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: NS },
  spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }], terminationGracePeriodSeconds: 30, hostNetwork: false },
};
const validDeployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: NS },
  spec: { replicas: 1, selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
};

/** Paths to fields of each kind, and the JSON kind each field holds. */
const typedFields: { collection: string; object: Record<string, unknown>; path: string[]; kind: 'string' | 'int' | 'bool' | 'map' | 'array' | 'object' }[] = [
  { collection: CM, object: validConfigMap, path: ['metadata'], kind: 'object' },
  { collection: CM, object: validConfigMap, path: ['metadata', 'name'], kind: 'string' },
  { collection: CM, object: validConfigMap, path: ['metadata', 'labels'], kind: 'map' },
  { collection: CM, object: validConfigMap, path: ['metadata', 'labels', 'app'], kind: 'string' },
  { collection: CM, object: validConfigMap, path: ['data'], kind: 'map' },
  { collection: CM, object: validConfigMap, path: ['data', 'k'], kind: 'string' },
  { collection: `/api/v1/namespaces/${NS}/pods`, object: validPod, path: ['spec'], kind: 'object' },
  { collection: `/api/v1/namespaces/${NS}/pods`, object: validPod, path: ['spec', 'containers'], kind: 'array' },
  { collection: `/api/v1/namespaces/${NS}/pods`, object: validPod, path: ['spec', 'containers', '0', 'image'], kind: 'string' },
  { collection: `/api/v1/namespaces/${NS}/pods`, object: validPod, path: ['spec', 'containers', '0', 'ports', '0', 'containerPort'], kind: 'int' },
  { collection: `/api/v1/namespaces/${NS}/pods`, object: validPod, path: ['spec', 'terminationGracePeriodSeconds'], kind: 'int' },
  { collection: `/api/v1/namespaces/${NS}/pods`, object: validPod, path: ['spec', 'hostNetwork'], kind: 'bool' },
  { collection: `/apis/apps/v1/namespaces/${NS}/deployments`, object: validDeployment, path: ['spec', 'replicas'], kind: 'int' },
  { collection: `/apis/apps/v1/namespaces/${NS}/deployments`, object: validDeployment, path: ['spec', 'selector', 'matchLabels'], kind: 'map' },
  { collection: `/apis/apps/v1/namespaces/${NS}/deployments`, object: validDeployment, path: ['spec', 'template', 'spec', 'containers'], kind: 'array' },
];

/** A JSON value that is not of the given kind (null is excluded: it means "unset" in kube). */
function wrongValue(kind: (typeof typedFields)[number]['kind']): fc.Arbitrary<unknown> {
  const str = fc.string({ maxLength: 20 });
  const num = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
  const obj = fc.dictionary(fc.string({ minLength: 1, maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 });
  const arr = fc.array(fc.oneof(str, fc.integer()), { maxLength: 3 });
  switch (kind) {
    case 'string':
      return fc.oneof(num, fc.boolean(), obj, arr);
    case 'int':
      return fc.oneof(str, fc.boolean(), obj, arr, fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)));
    case 'bool':
      return fc.oneof(str, num, obj, arr);
    case 'map':
      return fc.oneof(str, num, fc.boolean(), fc.array(fc.integer(), { minLength: 1, maxLength: 3 }));
    case 'array':
      return fc.oneof(str, num, fc.boolean(), obj);
    case 'object':
      return fc.oneof(str, num, fc.boolean(), arr);
  }
}

function setPath(object: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(object);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}

const writeTarget = fc.constantFrom<[string, string]>(['POST', CM], ['PUT', `${CM}/target`], ['POST', `/apis/apps/v1/namespaces/${NS}/deployments`]);

/** Bodies that are cheap to send and refuse. */
const cheapBadBody: fc.Arbitrary<RawRequest & { label: string }> = fc.oneof(
  // Truncated JSON: every proper prefix of an object's text is invalid.
  fc.tuple(writeTarget, fc.double({ min: 0, max: 0.999, noNaN: true })).map(([[method, path], cut]) => {
    const text = JSON.stringify(setPath(validConfigMap, ['metadata', 'name'], 'target'));
    return { label: 'truncated json', method, path, headers: { 'content-type': 'application/json' }, body: text.slice(0, Math.floor(text.length * cut)) };
  }),
  // Invalid JSON text of all sorts.
  fc.tuple(writeTarget, fc.string({ maxLength: 200 })).filter(([, s]) => !isJson(s)).map(([[method, path], s]) => ({ label: 'invalid json', method, path, headers: { 'content-type': 'application/json' }, body: s })),
  // Bytes that are not UTF-8 in the name (decoded as U+FFFD, as Go's decoder does, then refused by name validation).
  fc.tuple(writeTarget, fc.uint8Array({ minLength: 1, maxLength: 64 }).map((b) => b.map((x) => 0x80 | x))).map(([[method, path], bytes]) => ({
    label: 'invalid utf-8',
    method,
    path,
    headers: { 'content-type': 'application/json' },
    body: Buffer.concat([Buffer.from('{"metadata":{"name":"'), Buffer.from(bytes), Buffer.from('"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}')]),
  })),
  // Wrong types in every field kind of ConfigMaps, Pods and Deployments.
  fc.constantFrom(...typedFields).chain((field) =>
    wrongValue(field.kind).map((value) => {
      const object = setPath(field.object, field.path, value);
      return { label: `wrong type at ${field.path.join('.')}: ${JSON.stringify(value)}`, method: 'POST', path: field.collection, headers: { 'content-type': 'application/json' }, body: JSON.stringify(object) };
    }),
  ),
  // Garbage protobuf: random bytes, with and without the k8s\0 magic.
  fc.tuple(fc.constantFrom<[string, string]>(['POST', CM], ['PUT', `${CM}/target`]), fc.boolean(), fc.uint8Array({ maxLength: 200 })).map(([[method, path], magic, bytes]) => ({
    label: 'garbage protobuf',
    method,
    path,
    headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
    body: magic ? Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), Buffer.from(bytes)]) : Buffer.from(bytes),
  })),
  // Patches that are not patches: wrong JSON shape per patch type.
  fc.tuple(
    fc.constantFrom('application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'),
    fc.constantFrom('[{"op":"explode","path":"/data"}]', '[{"op":"add"}]', '"text"', '5', '[1,2]', '{"data":', '{"metadata":{"name":5}}', '{"data":{"a":{"b":1}}}'),
  ).map(([type, body]) => ({ label: `patch ${type} ${body}`, method: 'PATCH', path: `${CM}/target${type.includes('apply') ? '?fieldManager=fuzz' : ''}`, headers: { 'content-type': type }, body })),
);

/** Bodies that cost the server real work to refuse (deep, expanding or large): a fifth of the runs. */
const costlyBadBody: fc.Arbitrary<RawRequest & { label: string }> = fc.oneof(
  // Nesting past the decoder's depth limit (10,000), as arrays or objects, in JSON and YAML.
  fc.tuple(writeTarget, fc.integer({ min: 10_001, max: 12_000 }), fc.boolean(), fc.constantFrom('application/json', 'application/yaml')).map(([[method, path], depth, arrays, type]) => ({
    label: `nesting ${depth} (${type})`,
    method,
    path,
    headers: { 'content-type': type },
    body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"data":${arrays ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)}}`,
  })),
  // YAML alias bombs: each level doubles the expansion.
  fc.tuple(writeTarget, fc.integer({ min: 8, max: 30 })).map(([[method, path], levels]) => {
    const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i <= levels; i++) lines.push(`a${i}: &a${i} [*a${i - 1},*a${i - 1},*a${i - 1},*a${i - 1},*a${i - 1},*a${i - 1},*a${i - 1},*a${i - 1},*a${i - 1}]`);
    return { label: `yaml alias bomb ${levels}`, method, path, headers: { 'content-type': 'application/yaml' }, body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  ${lines.join('\n  ')}\n` };
  }),
  // Huge strings and arrays under the body limit, in a field that takes neither.
  fc.tuple(fc.integer({ min: 10_000, max: 200_000 }), fc.boolean()).map(([n, array]) => ({
    label: `huge ${array ? 'array' : 'string'} ${n}`,
    method: 'POST',
    path: CM,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'huge', labels: array ? new Array(n).fill(1) : 'x'.repeat(n) } }),
  })),
);

const badBody = fc.oneof({ arbitrary: cheapBadBody, weight: 4 }, { arbitrary: costlyBadBody, weight: 1 });

function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

// ---- headers ------------------------------------------------------------

const unsupportedType = fc.oneof(
  fc.constantFrom('text/plain', 'application/xml', 'text/html', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/cbor-seq', 'image/png', 'application/jsonx', 'application/json-patch', '*/*', 'application/*', ';;;'),
  fc.stringMatching(/^[a-z]{1,8}\/[a-z0-9.+-]{1,12}$/).filter((t) => !/^application\/(json|yaml|vnd\.kubernetes\.protobuf|cbor|merge-patch\+json|json-patch\+json|strategic-merge-patch\+json|apply-patch\+(yaml|cbor))$/.test(t)),
);

const badHeaders: fc.Arbitrary<RawRequest & { label: string; want?: number }> = fc.oneof(
  // A well-formed body under a media type the server does not decode.
  fc.tuple(fc.constantFrom<[string, string]>(['POST', CM], ['PUT', `${CM}/target`], ['PATCH', `${CM}/target`]), unsupportedType).map(([[method, path], type]) => ({
    label: `content-type ${type}`,
    want: 415,
    method,
    path,
    headers: { 'content-type': type },
    body: JSON.stringify(setPath(validConfigMap, ['metadata', 'name'], method === 'POST' ? 'fresh' : 'target')),
  })),
  // No Content-Type on a patch (its type is mandatory) or on an invalid body.
  fc.constantFrom<RawRequest & { label: string; want?: number }>(
    { label: 'patch without content-type', method: 'PATCH', path: `${CM}/target`, body: '{"data":{"a":"2"}}' },
    { label: 'create without content-type, bad body', method: 'POST', path: CM, body: '{"metadata":' },
  ),
  // Accept lists that name nothing the server produces.
  fc.tuple(
    fc.constantFrom(CM, `${CM}/target`, '/api/v1/namespaces', `/apis/apps/v1/namespaces/${NS}/deployments`),
    fc.array(fc.oneof(fc.constantFrom('text/html', 'application/xml', 'image/*', 'application/json;as=Nope;g=meta.k8s.io;v=v1', 'application/json;as=Table;g=x;v=v9', 'text/plain;q=1'), fc.stringMatching(/^[a-z]{2,6}\/[a-z]{2,6}(;q=0\.[1-9])?$/)), { minLength: 1, maxLength: 4 }),
  )
    .filter(([, list]) => list.every((a) => !/^(application\/(json|yaml|vnd\.kubernetes\.protobuf|cbor)|\*\/\*|application\/\*)($|;(?!as=))/.test(a)))
    .map(([path, list]) => ({ label: `accept ${list.join(', ')}`, want: 406, method: 'GET', path, headers: { accept: list.join(', ') } })),
);

// ---- paths --------------------------------------------------------------

const longName = (n: number) => 'a'.repeat(n);
const badPaths: fc.Arbitrary<BadRequest> = fc.oneof(
  // Dot segments, literal and encoded, in every position of an object path.
  fc.tuple(fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH'), fc.constantFrom('..', '.', '%2e%2e', '.%2E', '%2E'), fc.integer({ min: 0, max: 2 })).map(([method, dot, at]) => {
    const segments = ['api', 'v1', 'namespaces', NS, 'configmaps', 'target'];
    segments[[3, 5, 5][at]!] = dot;
    return { label: `dot segment ${dot}`, method, path: '/' + segments.join('/'), headers: { 'content-type': 'application/merge-patch+json' }, body: method === 'GET' || method === 'DELETE' ? undefined : '{}' };
  }),
  // Encoded slashes and other escapes inside a name or namespace.
  fc.tuple(fc.constantFrom('GET', 'DELETE', 'PUT'), fc.constantFrom('%2F', '%2f', 'a%2Fb', '%00', '%5C', 'a%20b', '%25', '%zz'), fc.boolean()).map(([method, name, inNamespace]) => ({
    label: `escaped ${name}`,
    method,
    path: inNamespace ? `/api/v1/namespaces/${name}/configmaps/target` : `${CM}/${name}`,
    headers: { 'content-type': 'application/json' },
    body: method === 'PUT' ? JSON.stringify(validConfigMap) : undefined,
  })).filter((r) => !(r.method === 'GET' && r.path === `${CM}/%25`)),
  // Overlong names and namespaces, in the path and in the body.
  fc.tuple(fc.integer({ min: 254, max: 4000 }), fc.constantFrom('get-name', 'create-name', 'namespace')).map(([n, where]) => {
    if (where === 'get-name') return { label: `name of ${n}`, method: 'GET', path: `${CM}/${longName(n)}` };
    if (where === 'create-name') return { label: `create name of ${n}`, method: 'POST', path: CM, headers: { 'content-type': 'application/json' }, body: JSON.stringify(setPath(validConfigMap, ['metadata', 'name'], longName(n))) };
    return { label: `namespace of ${n}`, method: 'POST', path: `/api/v1/namespaces/${longName(n)}/configmaps`, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'x' } }) };
  }),
  // Unknown groups, versions and resources.
  fc.tuple(fc.stringMatching(/^[a-z]{1,10}(\.[a-z]{1,6}){0,2}$/), fc.stringMatching(/^v[0-9]{1,2}(alpha[0-9]|beta[0-9])?$/), fc.stringMatching(/^[a-z]{1,12}$/), fc.constantFrom('GET', 'POST', 'DELETE'))
    .filter(([group]) => !['apps', 'batch', 'policy', 'autoscaling', 'networking.k8s.io', 'rbac.authorization.k8s.io'].includes(group))
    .map(([group, version, resource, method]) => ({
      label: `unknown ${group}/${version}/${resource}`,
      plainNotFound: true,
      method,
      path: `/apis/${group}.fuzz.invalid/${version}/namespaces/${NS}/${resource}`,
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    })),
  fc.tuple(fc.stringMatching(/^[a-z]{1,12}$/), fc.constantFrom('GET', 'POST', 'DELETE'))
    .filter(([resource]) => !['bindings', 'configmaps', 'endpoints', 'events', 'limitranges', 'pods', 'podtemplates', 'resourcequotas', 'secrets', 'services', 'serviceaccounts', 'replicationcontrollers', 'persistentvolumeclaims'].includes(resource))
    .map(([resource, method]) => ({ label: `unknown core resource ${resource}`, method, path: `/api/v1/namespaces/${NS}/${resource}`, headers: { 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined })),
);

// ---- query parameters ---------------------------------------------------

const garbage = fc.oneof(fc.stringMatching(/^[a-zA-Z!*~$-]{1,12}$/), fc.constantFrom('-1', '1.5', '0x10', '1e3', ' 5', '9'.repeat(30), '-', 'true'));
const enc = encodeURIComponent;
const badQuery: fc.Arbitrary<RawRequest & { label: string }> = fc.oneof(
  fc.tuple(fc.constantFrom('resourceVersion', 'limit', 'continue', 'timeoutSeconds', 'fieldSelector', 'labelSelector', 'resourceVersionMatch', 'sendInitialEvents'), garbage, fc.boolean())
    .filter(([param, value]) => {
      // Values kube-apiserver accepts for these parameters are not bad input.
      if (param === 'limit' || param === 'timeoutSeconds') return !/^-?\d+$/.test(value) || BigInt(value) >= 2n ** 63n;
      if (param === 'fieldSelector' || param === 'labelSelector') return /[!*~$]/.test(value) && !/^!?[a-zA-Z-]+$/.test(value);
      if (param === 'resourceVersionMatch') return !['', 'NotOlderThan', 'Exact'].includes(value);
      return true;
    })
    .map(([param, value, watch]) => ({ label: `${param}=${value}${watch ? ' (watch)' : ''}`, method: 'GET', path: `${CM}?${watch ? 'watch=1&' : ''}${param}=${enc(value)}` })),
  fc.constantFrom(
    ...['a in (', 'a notin', '=b', 'a!=b!=c', 'a=(b)', 'a,', '!', 'a in (b,', 'x'.repeat(64) + '=1', 'a=' + 'v'.repeat(64)].map((v) => ['labelSelector', v] as const),
    ...['a in (x)', '=b', 'a', 'a,', 'spec.nope=1', 'metadata.name in (x)', 'data=1', 'a!=b!=c'].map((v) => ['fieldSelector', v] as const),
  ).map(([param, value]) => ({ label: `${param}=${value}`, method: 'GET', path: `${CM}?${param}=${enc(value)}` })),
  fc.tuple(fc.constantFrom<[string, string]>(['POST', CM], ['PUT', `${CM}/target`], ['DELETE', `${CM}/target`], ['PATCH', `${CM}/target`]), garbage.filter((v) => v !== 'All'), fc.option(fc.string({ minLength: 129, maxLength: 300 }), { nil: undefined }))
    .map(([[method, path], dryRun, manager]) => ({
      label: `${method} dryRun=${dryRun}`,
      method,
      path: `${path}?dryRun=${enc(dryRun)}${manager ? `&fieldManager=${enc(manager)}` : ''}`,
      headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
      body: method === 'DELETE' ? undefined : method === 'PATCH' ? '{"data":{"a":"2"}}' : JSON.stringify(setPath(validConfigMap, ['metadata', 'name'], method === 'POST' ? 'fresh' : 'target')),
    })),
  fc.tuple(fc.constantFrom<[string, string]>(['POST', CM], ['PUT', `${CM}/target`], ['PATCH', `${CM}/target`]), fc.oneof(fc.string({ minLength: 129, maxLength: 300 }), fc.constantFrom('a\u0001b', '\u0000', 'x\u007f', 'tab\there')))
    .map(([[method, path], manager]) => ({
      label: `${method} fieldManager=${JSON.stringify(manager.slice(0, 20))}`,
      method,
      path: `${path}?fieldManager=${enc(manager)}`,
      headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
      body: method === 'PATCH' ? '{"data":{"a":"2"}}' : JSON.stringify(setPath(validConfigMap, ['metadata', 'name'], method === 'POST' ? 'fresh' : 'target')),
    })),
);

// ---- CEL cost bombs -----------------------------------------------------

const list10 = '[0,1,2,3,4,5,6,7,8,9]';
function nested(depth: number, macro: string): string {
  const vars = 'abcdefghij'.slice(0, depth).split('');
  let inner = macro === 'map' ? vars.join('+') : macro === 'exists' ? 'false' : 'true';
  for (const v of [...vars].reverse()) inner = `${list10}.${macro}(${v}, ${inner})`;
  return inner;
}
/** Comprehensions nested deep enough to pass the per-expression runtime cost limit. */
const celBomb = fc.oneof(
  fc.tuple(fc.integer({ min: 7, max: 9 }), fc.constantFrom('map', 'all', 'exists')).map(([d, m]) => nested(d, m)),
  fc.integer({ min: 6, max: 12 }).map((n) => `(${Array.from({ length: n }, () => list10).join(' + ')}).map(x, ${list10}.map(y, ${list10}.map(z, ${list10}.map(w, x+y+z+w))))`),
);
/** Catastrophic-backtracking patterns: RE2 semantics run them in linear time, so they simply answer. */
const regexBomb = fc.integer({ min: 10, max: 64 }).map((n) => `'${'a'.repeat(n)}!'.matches('^(a+)+$')`);

const crdBomb = fc.tuple(fc.integer({ min: 3, max: 5 }), fc.constantFrom('all', 'exists', 'map')).map(([depth, macro]) => {
  const vars = 'abcde'.slice(0, depth).split('');
  let inner = macro === 'map' ? `size(${vars.join(' + ')}) > 0` : `${vars.join(' + ')} != ""`;
  for (const v of [...vars].reverse()) inner = `self.items.${macro}(${v}, ${inner})`;
  if (macro === 'map') inner = `size(${inner}) >= 0`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'bombs.fuzz.io' },
    spec: {
      group: 'fuzz.io',
      scope: 'Namespaced',
      names: { plural: 'bombs', singular: 'bomb', kind: 'Bomb', listKind: 'BombList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } }, 'x-kubernetes-validations': [{ rule: inner }] } } } } }],
    },
  };
});

// ---- the suite ----------------------------------------------------------

describe('bad input against the Node host', () => {
  const groups: [string, number, fc.Arbitrary<BadRequest>][] = [
    ['malformed bodies: truncated and invalid JSON, invalid UTF-8, deep nesting, YAML alias bombs, wrong types, huge values, garbage protobuf', share(0.4), badBody],
    ['[API-ENC-014] [API-ERR-003] bad or missing Content-Type, and Accept lists that match nothing', share(0.15), badHeaders],
    ['paths: dot segments, encoded slashes, overlong names and namespaces, unknown groups (kube\'s plain-text 404) and resources', share(0.2), badPaths],
    ['garbage query parameters: resourceVersion, limit, continue, timeoutSeconds, selectors, dryRun, fieldManager', share(0.2), badQuery],
  ];
  for (const [title, runs, arbitrary] of groups) {
    it(`${title} (${runs} requests): each answer is a 4xx Status and the store is unchanged`, async () => {
      await fc.assert(
        fc.asyncProperty(arbitrary, async (req) => {
          await send(req, `${req.label}: ${req.method} ${req.path.slice(0, 120)}`);
        }),
        runOptions(runs),
      );
      await stillServing();
    }, 600_000);
  }

  it('bodies past the 3 MiB limit get 413 RequestEntityTooLarge, whether or not Content-Length is sent', async () => {
    const big = JSON.stringify({ metadata: { name: 'big' }, data: { k: 'x'.repeat(3 * 1024 * 1024) } });
    for (const [method, path] of [['POST', CM], ['PUT', `${CM}/target`], ['PATCH', `${CM}/target`]] as const) {
      const res = await send({ method, path, headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' }, body: big });
      expect(res.status).toBe(413);
      expect(expectStatus(res, method)).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
    }
    // Chunked: no Content-Length, so the limit is found while reading.
    const chunked = await new Promise<RawResponse>((resolve, reject) => {
      void import('node:http').then(({ request }) => {
        const url = new URL(t.host.url);
        const r = request({ host: url.hostname, port: url.port, method: 'POST', path: CM, headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d: Buffer) => chunks.push(d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        r.on('error', reject);
        for (let i = 0; i < 4; i++) r.write(big.slice(i * 1024 * 1024, (i + 1) * 1024 * 1024));
        r.end(big.slice(4 * 1024 * 1024));
      });
    });
    expect(chunked.status).toBe(413);
    expect(expectStatus(chunked, 'chunked')).toMatchObject({ reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
    await stillServing();
  });

  it('objects over the store\'s request limit (1.5 MiB) but under 3 MiB fail as kube-apiserver passes etcd\'s error on: 500, no reason', async () => {
    const before = await storeChecksum(t.host.api.storage);
    // A ConfigMap's data stops at 1 MiB in validation; an environment variable's value has no limit of its own.
    const body = JSON.stringify(setPath(validPod, ['spec', 'containers', '0', 'env'], [{ name: 'BIG', value: 'x'.repeat(2 * 1024 * 1024) }]));
    const req = { method: 'POST', path: `/api/v1/namespaces/${NS}/pods`, headers: { 'content-type': 'application/json' }, body };
    const res = await rawRequest(t.host.url, req);
    tallyAnswer(req, res, 'pod with a 2 MiB environment variable');
    expect(res.status).toBe(500);
    const status = expectStatus(res, 'too-big');
    expect(status.message).toBe('etcdserver: request is too large');
    expect(status.reason).toBeUndefined();
    expect(await storeChecksum(t.host.api.storage)).toEqual(before);
    await stillServing();
  });

  it(`CEL cost bombs through the evaluation endpoint stop at the cost limit (${share(0.02)} requests)`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(celBomb.map((e) => ({ e, bomb: true })), regexBomb.map((e) => ({ e, bomb: false }))), async ({ e: expression, bomb }) => {
        const before = await storeChecksum(t.host.api.storage);
        const req = {
          method: 'POST',
          path: '/apis/cel.kubesim.dev/v1alpha1/evaluations',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'cel.kubesim.dev/v1alpha1', kind: 'Evaluation', spec: { expression } }),
        };
        const res = await rawRequest(t.host.url, req);
        tallyAnswer(req, res, `CEL ${expression.slice(0, 60)}`);
        // An evaluation is never stored: the answer carries the outcome, here a cost-limit error.
        expect(res.status).toBe(201);
        const body = JSON.parse(res.body.toString('utf8')) as { status: { error?: string; value?: unknown } };
        if (bomb) expect(body.status.error, expression).toMatch(/cost limit exceeded/);
        else expect(body.status, expression).toMatchObject({ value: false });
        expect(await storeChecksum(t.host.api.storage)).toEqual(before);
      }),
      runOptions(share(0.02)),
    );
    await stillServing();
  }, 600_000);

  it(`CRD validation rules over the cost budget are refused with 422 (${share(0.01)} requests)`, async () => {
    await fc.assert(
      fc.asyncProperty(crdBomb, async (crd) => {
        const res = await send({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', headers: { 'content-type': 'application/json' }, body: JSON.stringify(crd) });
        expect(res.status).toBe(422);
        expect(res.body.toString('utf8')).toContain('estimated rule cost exceeds budget');
      }),
      runOptions(share(0.01)),
    );
    await stillServing();
  }, 600_000);

  it('--max-request-bytes sets the store\'s limit', async () => {
    const small = await startTestHost({ flags: { maxRequestBytes: 4096 } });
    try {
      const post = (n: number) =>
        rawRequest(small.host.url, { method: 'POST', path: '/api/v1/namespaces/default/configmaps', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: `cm-${n}` }, data: { k: 'x'.repeat(n) } }) });
      expect((await post(1000)).status).toBe(201);
      const res = await post(5000);
      expect(res.status).toBe(500);
      expect(expectStatus(res, 'over the flag')).toMatchObject({ message: 'etcdserver: request is too large' });
    } finally {
      await small.stop();
    }
  });

  it('leaves the whole store exactly as it was', async () => {
    expect(await storeChecksum(t.host.api.storage)).toEqual(baseline);
    expect(serverErrors.filter((e) => !e.allowedBecause)).toEqual([]);
    recordFigures(
      'fuzz',
      { requests: tally.requests, writesRejected: tally.writesRejected, byStatus: tally.byStatus, serverErrors, seed: SEED, storeKeys: baseline.keys, storeUnchanged: true },
      `KUBESIM_FUZZ_RUNS=${TOTAL} KUBESIM_FUZZ_SEED=${SEED} npx vitest run --project e2e e2e/reliability.fuzz.test.ts`,
    );
  });
});
