/**
 * CertificateSigningRequests in the service-worker host, in real Chromium:
 * a request approved through /approval is issued a certificate by the
 * worker's cluster CA (generated on its first start, kept in the
 * `kubesim-pki` IndexedDB database), and the same CA signs again after the
 * browser stops and restarts the worker.
 */
import { X509Certificate } from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newCertificateRequest } from '../src/core/testing/certificates';
import { openWorkbench, stopServiceWorkers, workbenchReady, type Workbench } from './support/browser';

const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
let w: Workbench;

/** A request issued by the page, so it goes through the worker. */
function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return w.page.evaluate(async ({ method, path, body }) => {
    const r = await fetch(path, { method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  }, { method, path, body });
}

/** Creates and approves a request for `name`, then waits on a watch until the certificate is there. */
async function issue(name: string): Promise<X509Certificate> {
  const { request } = await newCertificateRequest(`CN=${name}, O=dev`);
  const created = await call('POST', CSRS, { apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name }, spec: { request, signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const approved = await call('PUT', `${CSRS}/${name}/approval`, { ...created.body, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved' }] } });
  expect(approved.status, JSON.stringify(approved.body)).toBe(200);
  const certificate = await w.page.evaluate(async ({ path, rv }) => {
    const r = await fetch(`${path}&resourceVersion=${rv}`);
    const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return '';
      buffered += value;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const event = JSON.parse(buffered.slice(0, nl)) as { object: { status?: { certificate?: string } } };
        buffered = buffered.slice(nl + 1);
        if (event.object.status?.certificate) {
          await reader.cancel();
          return event.object.status.certificate;
        }
      }
    }
  }, { path: `${CSRS}?watch=1&fieldSelector=metadata.name%3D${name}`, rv: approved.body.metadata.resourceVersion as string });
  return new X509Certificate(atob(certificate));
}

beforeAll(async () => {
  w = await openWorkbench();
  await w.page.goto(w.baseUrl);
  await workbenchReady(w.page);
});
afterAll(async () => {
  await w?.close();
});

describe('certificate signing in the service worker', () => {
  it('approved requests are issued by the worker\'s cluster CA, which survives a worker restart', async () => {
    const caPem = async () => w.page.evaluate(() => new Promise<string>((resolve, reject) => {
      const open = indexedDB.open('kubesim-pki');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const get = open.result.transaction('pki').objectStore('pki').get('cluster-ca');
        get.onsuccess = () => {
          open.result.close();
          resolve((get.result as { certificate: string }).certificate);
        };
      };
    }));
    const first = await issue('jane');
    const stored = await caPem();
    const ca = new X509Certificate(stored);
    expect(first.subject).toBe('O=dev, CN=jane');
    expect(first.issuer).toBe(ca.subject);
    expect(await first.verify({ publicKey: ca.publicKey, signatureOnly: true })).toBe(true);

    await stopServiceWorkers(w.context, w.page);
    const second = await issue('joe');
    expect(await caPem()).toBe(stored);
    expect(await second.verify({ publicKey: ca.publicKey, signatureOnly: true })).toBe(true);
    expect(w.errors).toEqual([]);
  });
});
