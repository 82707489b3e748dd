import 'fake-indexeddb/auto';
import { X509Certificate } from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { ensureClusterCA } from './clusterCA';

describe('the worker cluster CA', () => {
  it('is generated once and read back on the next start', async () => {
    const first = await ensureClusterCA('kubesim-pki-test');
    const again = await ensureClusterCA('kubesim-pki-test');
    expect(again).toEqual(first);
    const cert = new X509Certificate(first.certificate);
    expect(cert.subject).toBe('CN=kubernetes');
    expect(first.privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });
});
