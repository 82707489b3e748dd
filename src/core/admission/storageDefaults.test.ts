/** DefaultStorageClass, StorageObjectInUseProtection and DefaultIngressClass admission through handle(). */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../testing/client';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const ns = '/api/v1/namespaces/default';
const storageClasses = '/apis/storage.k8s.io/v1/storageclasses';
const ingressClasses = '/apis/networking.k8s.io/v1/ingressclasses';
const claim = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, annotations },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const storageClass = (name: string, isDefault?: string) => ({
  apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', provisioner: 'example.com/disk',
  metadata: { name, annotations: isDefault ? { 'storageclass.kubernetes.io/is-default-class': isDefault } : undefined },
});
const ingress = (name: string, spec: Record<string, unknown> = {}, annotations?: Record<string, string>) => ({
  apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name, annotations },
  spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec },
});
const ingressClass = (name: string, isDefault?: boolean) => ({
  apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', spec: { controller: 'example.com/ingress' },
  metadata: { name, annotations: isDefault ? { 'ingressclass.kubernetes.io/is-default-class': 'true' } : undefined },
});

describe('DefaultStorageClass admission', () => {
  it('a claim without a class gets the default StorageClass, the newest of several; "" or the beta annotation keeps none', async () => {
    t = await newTestServer();
    const none = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('none') });
    expect(none.status).toBe(201);
    expect(none.body.spec.storageClassName).toBeUndefined();
    await t.json('POST', storageClasses, { body: storageClass('older', 'true') });
    await t.json('POST', storageClasses, { body: storageClass('not-default', 'false') });
    t.clock.advance(1000);
    await t.json('POST', storageClasses, { body: storageClass('newer', 'true') });
    const defaulted = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('defaulted') });
    expect(defaulted.body.spec.storageClassName).toBe('newer');
    const empty = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('empty', { storageClassName: '' }) });
    expect(empty.body.spec.storageClassName).toBe('');
    const beta = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: claim('beta', {}, { 'volume.beta.kubernetes.io/storage-class': 'older' }) });
    expect(beta.body.spec.storageClassName).toBeUndefined();
  });
});

describe('StorageObjectInUseProtection admission', () => {
  it('new claims get kubernetes.io/pvc-protection and volumes kubernetes.io/pv-protection, after finalizers of their own', async () => {
    t = await newTestServer();
    const pvc = await t.json('POST', `${ns}/persistentvolumeclaims`, { body: { ...claim('c'), metadata: { name: 'c', finalizers: ['example.com/keep'] } } });
    expect(pvc.body.metadata.finalizers).toEqual(['example.com/keep', 'kubernetes.io/pvc-protection']);
    const pv = await t.json('POST', '/api/v1/persistentvolumes', {
      body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } },
    });
    expect(pv.status).toBe(201);
    expect(pv.body.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
  });
});

describe('DefaultIngressClass admission', () => {
  it('an Ingress without ingressClassName or the ingress.class annotation gets the default IngressClass, the newest of several', async () => {
    t = await newTestServer();
    const base = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
    expect((await t.json('POST', base, { body: ingress('none') })).body.spec.ingressClassName).toBeUndefined();
    await t.json('POST', ingressClasses, { body: ingressClass('nginx', true) });
    t.clock.advance(1000);
    await t.json('POST', ingressClasses, { body: ingressClass('traefik', true) });
    await t.json('POST', ingressClasses, { body: ingressClass('other') });
    const r = await t.json('POST', base, { body: ingress('web') });
    expect(r.status).toBe(201);
    expect(r.body.spec.ingressClassName).toBe('traefik');
    expect((await t.json('POST', base, { body: ingress('own', { ingressClassName: 'other' }) })).body.spec.ingressClassName).toBe('other');
    expect((await t.json('POST', base, { body: ingress('annotated', {}, { 'kubernetes.io/ingress.class': 'nginx' }) })).body.spec.ingressClassName).toBeUndefined();
  });
});

describe('PVC and PV protection controllers', () => {
  const eventually = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 5));
    return check();
  };

  it('a claim a scheduled pod mounts stays Terminating until the pod is deleted, even once it finished; an unscheduled pod holds nothing', async () => {
    t = await newTestServer();
    const s = t;
    for (const c of ['used', 'free']) await s.json('POST', `${ns}/persistentvolumeclaims`, { body: claim(c) });
    const pod = (name: string, claimName: string, nodeName?: string) => ({
      apiVersion: 'v1', kind: 'Pod', metadata: { name },
      spec: { nodeName, containers: [{ name: 'c', image: 'nginx' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
    });
    expect((await s.json('POST', `${ns}/pods`, { body: pod('p', 'used', 'n1') })).status).toBe(201);
    expect((await s.json('POST', `${ns}/pods`, { body: pod('pending', 'free') })).status).toBe(201);
    const d = await s.json('DELETE', `${ns}/persistentvolumeclaims/used`);
    expect(d.status).toBe(200);
    expect(d.body.metadata.deletionTimestamp).toBeDefined();
    expect(d.body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect((await s.json('DELETE', `${ns}/persistentvolumeclaims/free`)).status).toBe(200);
    expect(await eventually(async () => (await s.json('GET', `${ns}/persistentvolumeclaims/free`)).status === 404)).toBe(true);
    // A finished pod still holds the claim.
    const running = (await s.json('GET', `${ns}/pods/p`)).body;
    expect((await s.json('PUT', `${ns}/pods/p/status`, { body: { ...running, status: { ...running.status, phase: 'Succeeded' } } })).status).toBe(200);
    await s.json('GET', `${ns}/persistentvolumeclaims/used`);
    const still = await s.json('GET', `${ns}/persistentvolumeclaims/used`);
    expect(still.body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    expect((await s.json('DELETE', `${ns}/pods/p?gracePeriodSeconds=0`)).status).toBe(200);
    expect(await eventually(async () => (await s.json('GET', `${ns}/persistentvolumeclaims/used`)).status === 404)).toBe(true);
  });

  it('a volume that is not Bound is deleted once its pv-protection finalizer is dropped', async () => {
    t = await newTestServer();
    const s = t;
    await s.json('POST', '/api/v1/persistentvolumes', {
      body: { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'v' }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } },
    });
    expect((await s.json('DELETE', '/api/v1/persistentvolumes/v')).status).toBe(200);
    expect(await eventually(async () => (await s.json('GET', '/api/v1/persistentvolumes/v')).status === 404)).toBe(true);
  });
});
