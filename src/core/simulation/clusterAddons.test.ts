/** kubeadm's add-ons on simulated nodes: what is installed, by whom, once; and CoreDNS as its log reports its Corefile. */
import { afterEach, describe, expect, it } from 'vitest';
import { sha512 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { newTestServer, type TestServer } from '../testing/client';
import { eventually } from '../testing/eventually';
import { upgradeSessionOf } from '../http/upgrade';
import { runStreamSession } from '../testing/streamSession';
import { createMemoryStorage } from '../storage/memory';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const system = '/api/v1/namespaces/kube-system';

/** Runs a command in a pod of the default namespace through pods/exec, as kubectl exec does. */
async function exec(s: TestServer, pod: string, command: string[]) {
  const q = new URLSearchParams();
  for (const c of command) q.append('command', c);
  const request = new Request(`http://127.0.0.1:8080/api/v1/namespaces/default/pods/${pod}/exec?${q}`, { method: 'POST', headers: { connection: 'Upgrade', upgrade: 'websocket' } });
  await s.server.handle(request);
  const session = upgradeSessionOf(request);
  if (!session) throw new Error('exec was not upgraded');
  return runStreamSession(session, '');
}

describe("kubeadm's add-ons", () => {
  it('are installed with simulated nodes, written as kubeadm: CoreDNS behind kube-dns at 10.96.0.10, kube-proxy on each node, kubeadm-config', async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 2 }));
    const dns = await eventually(async () => (await s.json('GET', `${system}/pods?labelSelector=k8s-app%3Dkube-dns`)).body.items as any[], (l) => l.length === 2 && l.every((p) => p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')), 'two ready coredns pods');
    expect(dns.map((p) => p.spec.nodeName).sort()).toEqual(['node-1', 'node-2']);
    expect(dns[0].spec).toMatchObject({ serviceAccountName: 'coredns', priorityClassName: 'system-cluster-critical', priority: 2000000000, dnsPolicy: 'Default' });

    const svc = (await s.json('GET', `${system}/services/kube-dns`)).body;
    expect(svc.spec).toMatchObject({ clusterIP: '10.96.0.10', selector: { 'k8s-app': 'kube-dns' } });
    expect(svc.spec.ports.map((p: any) => `${p.name}:${p.port}/${p.protocol}`)).toEqual(['dns:53/UDP', 'dns-tcp:53/TCP', 'metrics:9153/TCP']);
    expect(svc.metadata.managedFields.map((f: any) => f.manager)).toEqual(['kubeadm']);
    const slices = await eventually(async () => (await s.json('GET', '/apis/discovery.k8s.io/v1/namespaces/kube-system/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkube-dns')).body.items as any[], (l) => l[0]?.endpoints?.length === 2, 'the kube-dns endpoints');
    expect(slices[0].endpoints.map((e: any) => e.addresses[0]).sort()).toEqual(dns.map((p) => p.status.podIP).sort());

    const proxies = await eventually(async () => (await s.json('GET', `${system}/pods?labelSelector=k8s-app%3Dkube-proxy`)).body.items as any[], (l) => l.length === 2 && l.every((p) => p.status?.phase === 'Running'), 'kube-proxy on both nodes');
    // On the host network: the pod IP is its node's.
    expect(proxies.map((p) => `${p.spec.nodeName} ${p.status.podIP} ${p.spec.priority}`).sort()).toEqual(['node-1 172.18.0.2 2000001000', 'node-2 172.18.0.3 2000001000']);
    expect(proxies[0].spec.containers[0].image).toBe('registry.k8s.io/kube-proxy:v1.36.0');

    const config = (await s.json('GET', `${system}/configmaps/kubeadm-config`)).body;
    expect(config.data.ClusterConfiguration).toContain('kind: ClusterConfiguration\nkubernetesVersion: v1.36.0\nnetworking:\n  dnsDomain: cluster.local\n  podSubnet: 10.244.0.0/16\n');
    const binding = (await s.json('GET', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/kubeadm:node-proxier')).body;
    expect(binding.roleRef.name).toBe('system:node-proxier');

    // CoreDNS logs the SHA-512 of the Corefile it read from its ConfigMap.
    const corefile = (await s.json('GET', `${system}/configmaps/coredns`)).body.data.Corefile as string;
    const log = await (await s.request('GET', `${system}/pods/${dns[0].metadata.name}/log`)).text();
    expect(log).toBe(`maxprocs: Leaving GOMAXPROCS=4: CPU quota undefined\n.:53\n[INFO] plugin/reload: Running configuration SHA512 = ${bytesToHex(sha512(new TextEncoder().encode(corefile)))}\nCoreDNS-1.12.1\nlinux/amd64, go1.24.1, 707c7c1\n`);
  });

  it('are installed once: with kubeadm-config there, what was deleted stays deleted on the next start; without it, what is missing is created and the rest kept', async () => {
    const storage = createMemoryStorage();
    // A restart: the next server over the same data (closing a server closes its storage; this one stays open).
    const shared = new Proxy(storage, { get: (target, key) => (key === 'close' ? async () => {} : typeof Reflect.get(target, key) === 'function' ? (Reflect.get(target, key) as Function).bind(target) : Reflect.get(target, key)) });
    const start = async () => {
      const s = (t = await newTestServer({ storage: shared, controllers: ['*'], simulatedNodes: 1 }));
      await eventually(async () => (await s.json('GET', `${system}/configmaps/kubeadm-config`)).status, (c) => c === 200, 'kubeadm-config');
      return s;
    };
    /** The node's Lease renewed by this server's kubelet: its start, the add-ons' install among it, is done. */
    const started = async (s: TestServer) => {
      const renewed = (await s.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1')).body.metadata.resourceVersion;
      s.clock.advance(10_000);
      await eventually(async () => (await s.json('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1')).body.metadata.resourceVersion, (rv) => rv !== renewed, 'a Lease renewal');
    };
    let s = await start();
    expect((await s.json('DELETE', '/apis/apps/v1/namespaces/kube-system/deployments/coredns')).status).toBe(200);
    await s.server.close();
    s = await start();
    await started(s);
    expect((await s.json('GET', '/apis/apps/v1/namespaces/kube-system/deployments/coredns')).status).toBe(404);

    // An install cut short (no kubeadm-config): the next start finishes it, leaving what exists as it is.
    const dns = (await s.json('GET', `${system}/services/kube-dns`)).body.metadata.resourceVersion;
    expect((await s.json('DELETE', `${system}/configmaps/kubeadm-config`)).status).toBe(200);
    await s.server.close();
    s = await start();
    await started(s);
    expect((await s.json('GET', '/apis/apps/v1/namespaces/kube-system/deployments/coredns')).body.metadata.managedFields.map((f: any) => f.manager)).toContain('kubeadm');
    expect((await s.json('GET', `${system}/services/kube-dns`)).body.metadata.resourceVersion).toBe(dns);
  });

  it("the DNS debugging page's `log` plugin: once the kubelet remounts the edited Corefile, CoreDNS reloads it, and then logs each question a pod asks", async () => {
    const s = (t = await newTestServer({ controllers: ['*'], simulatedNodes: 1 }));
    await eventually(async () => (await s.json('GET', `${system}/pods?labelSelector=k8s-app%3Dkube-dns`)).body.items as any[], (l) => l.length === 2 && l.every((p) => p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True')), 'two ready coredns pods');
    await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/serviceaccounts/default')).status, (c) => c === 200, 'the default service account');
    expect((await s.json('POST', '/api/v1/namespaces/default/pods', { body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'client' }, spec: { containers: [{ name: 'app', image: 'busybox:1.36', command: ['sleep', '3600'] }] } } })).status).toBe(201);
    const client = await eventually(async () => (await s.json('GET', '/api/v1/namespaces/default/pods/client')).body, (p: any) => p?.status?.phase === 'Running', 'the client running');
    const corefile = (await s.json('GET', `${system}/configmaps/coredns`)).body.data.Corefile as string;
    const edited = corefile.replace('    errors\n', '    log\n    errors\n');
    expect((await s.json('PATCH', `${system}/configmaps/coredns`, { body: { data: { Corefile: edited } }, headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(200);
    const logs = async () => {
      const pods = (await s.json('GET', `${system}/pods?labelSelector=k8s-app%3Dkube-dns`)).body.items as any[];
      return (await Promise.all(pods.map(async (p) => (await s.request('GET', `${system}/pods/${p.metadata.name}/log`)).text()))).join('');
    };
    // Before the remount, nothing is logged.
    await exec(s, 'client', ['nslookup', 'kubernetes.default.svc.cluster.local']);
    expect(await logs()).not.toContain('kubernetes.default.svc.cluster.local');
    // The kubelet's next sync (1m) remounts the Corefile; the reload plugin's next look (every 30s) finds it changed.
    s.clock.advance(100_000);
    await eventually(async () => (await logs()).includes('Reloading'), (seen) => !seen, 'no reload before the next look');
    s.clock.advance(30_000);
    const reloaded = await eventually(logs, (l) => l.split('[INFO] Reloading complete').length === 3, 'both coredns pods reloaded');
    expect(reloaded).toContain(`[INFO] Reloading\n[INFO] plugin/health: Going into lameduck mode for 5s\n[INFO] plugin/reload: Running configuration SHA512 = ${bytesToHex(sha512(new TextEncoder().encode(edited)))}\n[INFO] Reloading complete\n`);
    const looked = await exec(s, 'client', ['nslookup', 'kubernetes.default.svc.cluster.local']);
    expect(looked.stdout).toContain('Address: 10.96.0.1');
    const ip = client.status.podIP.replace(/\./g, '\\.');
    const log = await logs();
    expect(log).toMatch(new RegExp(`\\[INFO\\] ${ip}:\\d+ - \\d+ "A IN kubernetes\\.default\\.svc\\.cluster\\.local\\. udp 54 false 512" NOERROR qr,aa,rd 106 0\\.000\\d{6}s\\n`));
    expect(log).toMatch(new RegExp(`\\[INFO\\] ${ip}:\\d+ - \\d+ "AAAA IN kubernetes\\.default\\.svc\\.cluster\\.local\\. udp 54 false 512" NOERROR qr,aa,rd 147 `));
  });
});
