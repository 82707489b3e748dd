/**
 * Encodings over a Node host, read the way clients read them: a protobuf watch
 * as client-go frames it (4-byte big-endian length, then a WatchEvent whose
 * object is a `k8s\0` envelope), a CBOR watch as an application/cbor-seq, and
 * objects written in one encoding read back in another.
 */
import { encode as cborgEncode } from 'cborg';
import { plain, readCbor, readCborSequence } from '../src/core/http/serializers/cbor/cborReader.test-data';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeProtobuf } from '../src/core/http/serializers/protobuf';
import { decodeEnvelope, decodeRaw, decodeWatchFrame, protoFilesAvailable } from '../src/core/http/serializers/protobuf/protoFiles.test-data';
import { run, startTestHost, type TestHost } from './support/host';

const PB = 'application/vnd.kubernetes.protobuf';
let h: TestHost;
let base: string;

beforeAll(async () => {
  h = await startTestHost({ flags: { featureGates: { CBORServingAndStorage: true } } });
  base = h.host.url;
});
afterAll(() => h?.stop());

const cm = (name: string, data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** client-go's LengthDelimitedFramer: reads exactly one frame at a time off the socket's stream. */
class FrameReader {
  private buf = new Uint8Array();
  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buf.length < n) {
      const { value, done } = await this.reader.read();
      if (done) return false;
      const next = new Uint8Array(this.buf.length + value.length);
      next.set(this.buf);
      next.set(value, this.buf.length);
      this.buf = next;
    }
    return true;
  }

  async next(): Promise<Uint8Array | undefined> {
    if (!(await this.fill(4))) return undefined;
    const len = new DataView(this.buf.buffer, this.buf.byteOffset, 4).getUint32(0);
    if (!(await this.fill(4 + len))) throw new Error('stream ended inside a frame');
    const frame = this.buf.slice(4, 4 + len);
    this.buf = this.buf.slice(4 + len);
    return frame;
  }
}


describe('encodings over HTTP', () => {
  it.skipIf(!protoFilesAvailable)('[API-ENC-027][API-WATCH-020] a client-go style protobuf watch: frames read off the socket, objects in the envelope', async () => {
    const created = await fetch(`${base}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'content-type': PB, accept: `${PB}, application/json` },
      body: encodeProtobuf(cm('pb-one', { a: '1' })) as BodyInit,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe(PB);
    const envelope = decodeEnvelope(new Uint8Array(await created.arrayBuffer()));
    const rv = (decodeRaw('k8s.io.api.core.v1.ConfigMap', envelope.raw) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;

    const abort = new AbortController();
    const watch = await fetch(`${base}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&timeoutSeconds=30`, {
      headers: { accept: `${PB}, application/json` },
      signal: abort.signal,
    });
    expect(watch.status).toBe(200);
    expect(watch.headers.get('content-type')).toBe(`${PB};stream=watch`);
    const frames = new FrameReader(watch.body!.getReader());
    await fetch(`${base}/api/v1/namespaces/default/configmaps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(cm('pb-two', { b: '2' })) });
    await fetch(`${base}/api/v1/namespaces/default/configmaps/pb-one`, { method: 'DELETE' });
    const events = [];
    for (let i = 0; i < 2; i++) {
      const frame = await frames.next();
      expect(frame).toBeDefined();
      const e = decodeWatchFrame(frame!);
      events.push({ type: e.type, kind: e.object.kind, object: decodeRaw('k8s.io.api.core.v1.ConfigMap', e.object.raw) as { metadata: { name: string }; data: Record<string, string> } });
    }
    abort.abort();
    expect(events.map((e) => [e.type, e.kind, e.object.metadata.name, e.object.data])).toEqual([
      ['ADDED', 'ConfigMap', 'pb-two', { b: '2' }],
      ['DELETED', 'ConfigMap', 'pb-one', { a: '1' }],
    ]);
  });

  it('[API-WATCH-033][API-ENC-028] with CBORServingAndStorage: a CBOR create, read back as JSON, and a cbor-seq watch', async () => {
    const created = await fetch(`${base}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      headers: { 'content-type': 'application/cbor', accept: 'application/cbor' },
      body: cborgEncode(cm('cb-one', { c: '3' })) as BodyInit,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/cbor');
    const obj = plain(readCbor(new Uint8Array(await created.arrayBuffer()))) as { metadata: { resourceVersion: string } };
    const json = (await (await fetch(`${base}/api/v1/namespaces/default/configmaps/cb-one`)).json()) as unknown;
    expect(obj).toEqual(json);

    const abort = new AbortController();
    const watch = await fetch(`${base}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${obj.metadata.resourceVersion}&timeoutSeconds=30`, {
      headers: { accept: 'application/cbor' },
      signal: abort.signal,
    });
    expect(watch.headers.get('content-type')).toBe('application/cbor-seq');
    await fetch(`${base}/api/v1/namespaces/default/configmaps/cb-one`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ data: { c: '4' } }),
    });
    const reader = watch.body!.getReader();
    let buf = new Uint8Array();
    let items: unknown[] = [];
    while (items.length < 1) {
      const { value, done } = await reader.read();
      if (done) break;
      buf = new Uint8Array([...buf, ...value]);
      try {
        items = (readCborSequence(buf)).map(plain);
      } catch {
        // an item is still arriving
      }
    }
    abort.abort();
    expect(items).toMatchObject([{ type: 'MODIFIED', object: { kind: 'ConfigMap', metadata: { name: 'cb-one' }, data: { c: '4' } } }]);
  });
});

describe('kubectl 1.32 as the judge', () => {
  /** kubectl with client-go's CBOR gates on (read from KUBE_FEATURE_* at start), logging its requests. */
  const kubectlCbor = (args: string[]) =>
    run('kubectl', [...args, '-v=8'], { HOME: h.home, KUBECONFIG: h.host.kubeconfigPath, KUBE_FEATURE_ClientsAllowCBOR: 'true', KUBE_FEATURE_ClientsPreferCBOR: 'true' });

  it('[API-ENC-027] kubectl create configmap sends protobuf and reads the protobuf answer', async () => {
    const r = await kubectlCbor(['create', 'configmap', 'kc-pb', '--from-literal=a=b']);
    expect(r.stdout).toContain('configmap/kc-pb created');
    expect(r.stderr).toContain(`Content-Type: ${PB}`);
    expect(r.stderr).toContain('Response Status: 201 Created');
  });

  it('[API-WATCH-033][API-ENC-023] kubectl wait through the dynamic client: a CBOR list, then a cbor-seq watch that sees the change', async () => {
    await h.kubectl(['create', 'configmap', 'kc-cbor', '--from-literal=a=b']);
    const waiting = kubectlCbor(['wait', 'configmap/kc-cbor', '--for=jsonpath={.data.a}=c', '--timeout=30s']);
    // Let the wait reach its watch before the change it waits for.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const patched = await h.kubectl(['patch', 'configmap', 'kc-cbor', '--type=merge', '-p', '{"data":{"a":"c"}}']);
    expect(patched.code).toBe(0);
    const r = await waiting;
    expect(r.stdout).toContain('configmap/kc-cbor condition met');
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Accept: application/json;q=0.9,application/cbor;q=1');
    expect(r.stderr).toContain('Content-Type: application/cbor-seq');
  });
});
