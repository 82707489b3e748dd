/**
 * Real kubectl 1.32 against the Node host: the "external service" lesson. A
 * Service without a selector and a hand-written Endpoints are mirrored into an
 * EndpointSlice, which is what `kubectl describe svc` reads its endpoints from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { mirroringMaxEndpointsPerSubset: 3 } });
});
afterAll(async () => {
  await t?.stop();
});

const manifest = (addresses: string[]) => `apiVersion: v1
kind: Service
metadata:
  name: ext
spec:
  ports:
  - name: web
    port: 80
---
apiVersion: v1
kind: Endpoints
metadata:
  name: ext
  labels:
    team: blue
subsets:
- addresses:
${addresses.map((ip) => `  - ip: ${ip}\n`).join('')}  notReadyAddresses:
  - ip: 192.0.2.20
  ports:
  - name: web
    port: 80
`;

describe('kubectl and a Service without a selector', () => {
  it('kubectl describe svc lists the hand-written Endpoints\' ready addresses and kubectl get endpointslices shows the mirrored slice; kubectl apply of a change updates it in place', async () => {
    const applied = await t.kubectl(['apply', '-f', '-'], manifest(['192.0.2.10', '192.0.2.11']));
    expect(applied.code, applied.stderr).toBe(0);
    const slices = await eventually(() => t.kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=ext']), (r) => r.stdout.includes('ext-'), 'the mirrored slice');
    const lines = slices.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^NAME\s+ADDRESSTYPE\s+PORTS\s+ENDPOINTS\s+AGE$/);
    expect(lines[1]).toMatch(/^ext-[a-z0-9]{5}\s+IPv4\s+80\s+192\.0\.2\.10,192\.0\.2\.11,192\.0\.2\.20\s+\S+$/);
    const name = lines[1]!.split(/\s+/)[0]!;
    // The apiserver's own \`kubernetes\` Endpoints is labelled skip-mirror: its slice is the apiserver's, and no mirror is made.
    expect(await t.kubectlOk(['get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.metadata.labels}'])).toBe('{"endpointslice.kubernetes.io/skip-mirror":"true"}');
    expect((await t.kubectlOk(['get', 'endpointslices', '-l', 'endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io', '-o', 'name'])).trim()).toBe(`endpointslice.discovery.k8s.io/${name}`);

    const described = await t.kubectlOk(['describe', 'svc', 'ext']);
    expect(described).toMatch(/\nSelector:\s+<none>\n/);
    // Only ready endpoints are listed, as kubectl formats them from the slices.
    expect(described).toMatch(/\nEndpoints:\s+192\.0\.2\.10:80,192\.0\.2\.11:80\n/);

    const meta = JSON.parse(await t.kubectlOk(['get', 'endpointslice', name, '-o', 'jsonpath={.metadata}']));
    expect(meta.labels).toEqual({ team: 'blue', 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
    // kubectl's last-applied configuration on the Endpoints is not mirrored.
    expect(meta.annotations).toBeUndefined();
    expect(meta.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Endpoints', name: 'ext', uid: await t.kubectlOk(['get', 'endpoints', 'ext', '-o', 'jsonpath={.metadata.uid}']), controller: true, blockOwnerDeletion: true }]);

    // Three more addresses: the subset is cut at --mirroring-max-endpoints-per-subset (3), in the same slice, with a Warning on the Endpoints.
    const reapplied = await t.kubectl(['apply', '-f', '-'], manifest(['192.0.2.10', '192.0.2.11', '192.0.2.12', '192.0.2.13']));
    expect(reapplied.code, reapplied.stderr).toBe(0);
    const cut = await eventually(() => t.kubectlOk(['get', 'endpointslice', name, '-o', 'jsonpath={.endpoints[*].addresses[0]}']), (out) => out.includes('192.0.2.12'), 'the slice updated');
    expect(cut).toBe('192.0.2.10 192.0.2.11 192.0.2.12');
    const events = await eventually(() => t.kubectlOk(['get', 'events', '--field-selector', 'involvedObject.kind=Endpoints,reason=TooManyAddressesToMirror', '-o', 'jsonpath={.items[*].message}']), (out) => out !== '', 'the event');
    expect(events).toBe('A max of 3 addresses can be mirrored to EndpointSlices per Endpoints subset. 2 addresses were skipped');

    // The Service deleted: its mirrored slice goes.
    expect((await t.kubectl(['delete', 'svc', 'ext'])).code).toBe(0);
    await eventually(() => t.kubectl(['get', 'endpointslices', '-l', 'kubernetes.io/service-name=ext', '-o', 'name']), (r) => r.code === 0 && r.stdout.trim() === '', 'the slice deleted');
  });
});
