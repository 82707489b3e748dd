/**
 * Real kubectl 1.32 against the Node host, with real HTTPS admission
 * webhooks started here (node:https on 127.0.0.1, a self-signed certificate
 * given as caBundle): denials, patches, TLS verification, unreachable services.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from './support/host';

type Review = { apiVersion: string; kind: string; request: { uid: string; object?: { metadata?: { name?: string; labels?: Record<string, string> } }; dryRun: boolean; operation: string } };

let t: TestHost;
let webhooks: Server;
let base = '';
let caBundle = '';
let otherCA = '';
const seen: { path: string; review: Review }[] = [];

async function selfSigned(): Promise<{ cert: string; key: string }> {
  const pems = await generate([{ name: 'commonName', value: 'webhook.example.com' }], {
    keySize: 2048, algorithm: 'sha256', notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    extensions: [{ name: 'basicConstraints', cA: true }, { name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

/** The webhook servers: /validate denies objects labelled deny=true, /mutate adds a label. */
function answer(path: string, review: Review): Record<string, unknown> {
  const uid = review.request.uid;
  if (path === '/validate') {
    const deny = review.request.object?.metadata?.labels?.['deny'] === 'true';
    return { uid, allowed: !deny, ...(deny ? { status: { message: 'objects labelled deny=true are refused', code: 403 } } : {}), warnings: deny ? [] : ['checked by validate.example.com'] };
  }
  const ops = [{ op: 'add', path: '/metadata/labels', value: { ...(review.request.object?.metadata?.labels ?? {}), 'mutated-by': 'mutate.example.com' } }];
  return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

beforeAll(async () => {
  const serving = await selfSigned();
  caBundle = Buffer.from(serving.cert).toString('base64');
  otherCA = Buffer.from((await selfSigned()).cert).toString('base64');
  webhooks = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://127.0.0.1');
      const review = JSON.parse(body) as Review;
      seen.push({ path: url.pathname, review });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: answer(url.pathname, review) }));
    });
  });
  await new Promise<void>((resolve) => webhooks.listen(0, '127.0.0.1', resolve));
  base = `https://127.0.0.1:${(webhooks.address() as AddressInfo).port}`;
  t = await startTestHost();
});
afterAll(async () => {
  await t?.stop();
  await new Promise((resolve) => webhooks?.close(resolve));
});

const configuration = (kind: string, name: string, hooks: Record<string, unknown>[]) => JSON.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name },
  webhooks: hooks.map((h) => ({
    sideEffects: 'None', admissionReviewVersions: ['v1'],
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }], ...h,
  })),
});

describe('kubectl against admission webhooks', () => {
  it('a validating webhook denies a create: kubectl prints the webhook\'s denial', async () => {
    const ns = 'validating';
    expect((await t.kubectl(['create', 'namespace', ns])).code).toBe(0);
    const hook = { name: 'validate.example.com', clientConfig: { url: `${base}/validate`, caBundle }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    expect((await t.kubectl(['apply', '-f', '-'], configuration('ValidatingWebhookConfiguration', 'validate', [hook]))).code).toBe(0);
    const denied = await t.kubectl(['create', '-n', ns, '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: refused, labels: {deny: "true"}}\n');
    expect(denied.code).toBe(1);
    expect(denied.stderr).toBe('Error from server: error when creating "STDIN": admission webhook "validate.example.com" denied the request: objects labelled deny=true are refused\n');
    const allowed = await t.kubectl(['create', 'configmap', 'allowed', '-n', ns, '--from-literal=a=b']);
    expect(allowed.stdout).toBe('configmap/allowed created\n');
    expect(allowed.stderr).toBe('Warning: checked by validate.example.com\n');
    expect(seen.filter((s) => s.path === '/validate').map((s) => s.review.request.object?.metadata?.name)).toEqual(['refused', 'allowed']);
    // A dry run reaches the webhook (sideEffects None) with dryRun true.
    expect((await t.kubectl(['create', 'configmap', 'dry', '-n', ns, '--from-literal=a=b', '--dry-run=server'])).code).toBe(0);
    expect(seen.at(-1)!.review.request.dryRun).toBe(true);
  });

  it('a mutating webhook\'s patch shows in kubectl get -o yaml', async () => {
    const ns = 'mutating';
    expect((await t.kubectl(['create', 'namespace', ns])).code).toBe(0);
    const hook = { name: 'mutate.example.com', clientConfig: { url: `${base}/mutate`, caBundle }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    expect((await t.kubectl(['apply', '-f', '-'], configuration('MutatingWebhookConfiguration', 'mutate', [hook]))).code).toBe(0);
    expect((await t.kubectl(['create', 'configmap', 'patched', '-n', ns, '--from-literal=a=b'])).stdout).toBe('configmap/patched created\n');
    const yaml = await t.kubectl(['get', 'configmap', 'patched', '-n', ns, '-o', 'yaml']);
    expect(yaml.stdout).toContain('  labels:\n    mutated-by: mutate.example.com\n');
  });

  it('a caBundle that did not sign the webhook\'s certificate fails the call (failurePolicy Fail)', async () => {
    const ns = 'untrusted';
    expect((await t.kubectl(['create', 'namespace', ns])).code).toBe(0);
    const hook = { name: 'untrusted.example.com', clientConfig: { url: `${base}/validate`, caBundle: otherCA }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    expect((await t.kubectl(['apply', '-f', '-'], configuration('ValidatingWebhookConfiguration', 'untrusted', [hook]))).code).toBe(0);
    const r = await t.kubectl(['create', 'configmap', 'x', '-n', ns, '--from-literal=a=b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: failed to create configmap: Internal error occurred: failed calling webhook "untrusted.example.com": failed to call webhook: Post "${base}/validate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority\n`);
  });

  it('a service reference has no pod network behind it: the call fails as an unresolvable name', async () => {
    const ns = 'service';
    expect((await t.kubectl(['create', 'namespace', ns])).code).toBe(0);
    const hook = { name: 'svc.example.com', clientConfig: { service: { namespace: 'webhooks', name: 'webhook', path: '/validate' }, caBundle }, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    expect((await t.kubectl(['apply', '-f', '-'], configuration('ValidatingWebhookConfiguration', 'svc', [hook]))).code).toBe(0);
    const r = await t.kubectl(['create', 'configmap', 'x', '-n', ns, '--from-literal=a=b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: failed to create configmap: Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://webhook.webhooks.svc:443/validate?timeout=10s": dial tcp: lookup webhook.webhooks.svc: no such host\n');
  });
});
