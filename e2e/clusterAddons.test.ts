/**
 * Real kubectl 1.32 against the Node host with --simulated-nodes: the add-ons
 * `kubeadm init` installs on a kind cluster (CoreDNS behind kube-dns, and
 * kube-proxy on every node), as the docs' "Debugging DNS Resolution" page
 * looks at them with its dnsutils pod (BIND's nslookup), and the cluster DNS
 * following CoreDNS: scaled to zero, a lookup times out; scaled back, it
 * answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../src/core/testing/eventually';
import { startTestHost, type TestHost } from './support/host';

let t: TestHost;
beforeAll(async () => {
  t = await startTestHost({ flags: { simulatedNodes: 2 } });
});
afterAll(async () => {
  await t?.stop();
});

const lines = (text: string) => text.trim().split('\n');

describe("kubeadm's add-ons on simulated nodes", () => {
  it('CoreDNS runs as kube-dns: its pods, logs, Service and endpoints as the DNS debugging page shows them; kubectl cluster-info names it', async () => {
    const pods = await eventually(() => t.kubectlOk(['get', 'pods', '--namespace=kube-system', '-l', 'k8s-app=kube-dns', '--no-headers']), (o) => lines(o).filter((l) => /\s1\/1\s+Running\s/.test(l)).length === 2, 'two coredns pods Ready');
    for (const line of lines(pods)) expect(line).toMatch(/^coredns-[0-9a-f]{8,10}-[0-9a-z]{5}\s+1\/1\s+Running\s+0\s/);
    // One per node: the Deployment's preferred anti-affinity spreads them.
    const nodes = await t.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'jsonpath={.items[*].spec.nodeName}']);
    expect(nodes.split(' ').sort()).toEqual(['node-1', 'node-2']);

    const logs = await t.kubectlOk(['logs', '--namespace=kube-system', '-l', 'k8s-app=kube-dns']);
    expect(logs).toMatch(/^\.:53\n\[INFO\] plugin\/reload: Running configuration SHA512 = [0-9a-f]{128}\nCoreDNS-1\.12\.1\nlinux\/amd64, go1\.24\.1, 707c7c1\n/m);

    const svc = await t.kubectlOk(['get', 'svc', '--namespace=kube-system']);
    expect(lines(svc)[1]).toMatch(/^kube-dns\s+ClusterIP\s+10\.96\.0\.10\s+<none>\s+53\/UDP,53\/TCP,9153\/TCP\s/);
    const podIPs = (await t.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'jsonpath={.items[*].status.podIP}'])).split(' ').sort();
    const slices = await eventually(() => t.kubectlOk(['get', 'endpointslices', '-l', 'k8s-app=kube-dns', '--namespace=kube-system', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}']), (o) => o.split(' ').length === 2, 'both endpoints');
    expect(slices.split(' ').sort()).toEqual(podIPs);

    expect(await t.kubectlOk(['cluster-info'])).toContain('CoreDNS is running at http://127.0.0.1:');
    // Distroless: no shell to exec.
    const exec = await t.kubectl(['exec', '-n', 'kube-system', 'deploy/coredns', '--', 'sh']);
    expect(exec.code).not.toBe(0);
    expect(exec.stderr).toContain('exec: "sh": executable file not found in $PATH');
  });

  it('kube-proxy runs on every node on the host network, its iptables rules readable in its pod; drain refuses its DaemonSet pods unless told to ignore them', async () => {
    const ds = await eventually(() => t.kubectlOk(['get', 'ds', '-n', 'kube-system', 'kube-proxy', '--no-headers']), (o) => /^kube-proxy\s+2\s+2\s+2\s+2\s+2\s+kubernetes\.io\/os=linux\s/.test(o), 'kube-proxy 2/2');
    expect(ds).toBeTruthy();
    const wide = lines(await t.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-proxy', '-o', 'wide', '--no-headers', '--sort-by=.spec.nodeName']));
    expect(wide.map((l) => l.split(/\s+/).slice(5, 7))).toEqual([['172.18.0.2', 'node-1'], ['172.18.0.3', 'node-2']]);
    const logs = await t.kubectlOk(['logs', '-n', 'kube-system', 'ds/kube-proxy']);
    expect(logs).toMatch(/^I\d{4} \d\d:\d\d:\d\d\.\d{6}\s+1 server_linux\.go:66\] "Using iptables proxy"$/m);
    expect(logs).toContain('"Successfully retrieved node IP(s)" IPs=["172.18.0.');
    expect(logs).toMatch(/"Version info" version="v1\.\d+\.\d+"/);

    // Its rules, by the chain names every cluster has: the kubernetes Service's and kube-dns's.
    const proxy = lines(await t.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-proxy', '-o', 'name']))[0]!;
    const nat = await t.kubectlOk(['exec', '-n', 'kube-system', proxy, '--', 'iptables-save', '-t', 'nat']);
    expect(nat).toContain('-A KUBE-SERVICES -d 10.96.0.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y\n');
    expect(nat).toContain('-A KUBE-SERVICES -d 10.96.0.10/32 -p udp -m comment --comment "kube-system/kube-dns:dns cluster IP" -m udp --dport 53 -j KUBE-SVC-TCOU7JCQXEZGVUNU\n');
    expect(nat).toMatch(/-A KUBE-SVC-TCOU7JCQXEZGVUNU -m comment --comment "kube-system\/kube-dns:dns -> 10\.244\.\d\.\d+:53" -m statistic --mode random --probability 0\.50000000000 -j KUBE-SEP-[A-Z2-7]{16}\n/);
    expect(await t.kubectlOk(['exec', '-n', 'kube-system', proxy, '--', 'iptables', '-t', 'nat', '-S', 'KUBE-MARK-MASQ'])).toBe('-N KUBE-MARK-MASQ\n-A KUBE-MARK-MASQ -j MARK --set-xmark 0x4000/0x4000\n');

    const refused = await t.kubectl(['drain', 'node-1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/cannot delete DaemonSet-managed Pods \(use --ignore-daemonsets to ignore\): kube-system\/kube-proxy-[0-9a-z]{5}/);
    const drained = await t.kubectl(['drain', 'node-1', '--ignore-daemonsets']);
    expect(drained.code, drained.stderr).toBe(0);
    expect(drained.stderr).toMatch(/Warning: ignoring DaemonSet-managed Pods: kube-system\/kube-proxy-[0-9a-z]{5}/);
    expect(drained.stdout).toMatch(/pod\/coredns-[0-9a-f]+-[0-9a-z]{5} evicted/);
    expect(drained.stdout).toContain('node/node-1 drained');
    // The evicted coredns pod is replaced on the node left.
    await eventually(() => t.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}/{.status.phase} {end}']), (o) => o.trim() === 'node-2/Running node-2/Running', 'both coredns pods on node-2');
    expect(await t.kubectlOk(['uncordon', 'node-1'])).toContain('node/node-1 uncordoned');
  });

  it("the DNS debugging page's dnsutils pod: BIND's nslookup finds kubernetes.default, resolv.conf names kube-dns; CoreDNS's ClusterRole has the page's rules", async () => {
    const dnsutils = `apiVersion: v1
kind: Pod
metadata:
  name: dnsutils
  namespace: default
spec:
  containers:
  - name: dnsutils
    image: registry.k8s.io/e2e-test-images/jessie-dnsutils:1.3
    command:
      - sleep
      - "infinity"
    imagePullPolicy: IfNotPresent
  restartPolicy: Always
`;
    expect(await t.kubectlOk(['apply', '-f', '-'], dnsutils)).toBe('pod/dnsutils created\n');
    await t.kubectlOk(['wait', '--for=condition=Ready', 'pod/dnsutils', '--timeout=30s']);
    const lookup = await t.kubectl(['exec', '-i', '-t', 'dnsutils', '--', 'nslookup', 'kubernetes.default']);
    expect(lookup.stdout).toBe('Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\nName:\tkubernetes.default.svc.cluster.local\nAddress: 10.96.0.1\n\n');
    expect(await t.kubectlOk(['exec', 'dnsutils', '--', 'cat', '/etc/resolv.conf'])).toBe('search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n');
    const role = await t.kubectlOk(['describe', 'clusterrole', 'system:coredns', '-n', 'kube-system']);
    expect(role).toMatch(/^\s+endpoints\s+\[\]\s+\[\]\s+\[list watch\]$/m);
    expect(role).toMatch(/^\s+endpointslices\.discovery\.k8s\.io\s+\[\]\s+\[\]\s+\[list watch\]$/m);
  });

  it('a lookup times out while CoreDNS has no ready pods, and answers again once it has', async () => {
    await t.kubectlOk(['run', 'dns-client', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '3600']);
    await t.kubectlOk(['wait', '--for=condition=Ready', 'pod/dns-client', '--timeout=30s']);
    const answered = await t.kubectl(['exec', 'dns-client', '--', 'nslookup', 'kubernetes.default']);
    expect(answered.stdout).toBe('Server:    10.96.0.10\nAddress 1: 10.96.0.10 kube-dns.kube-system.svc.cluster.local\n\nName:      kubernetes.default\nAddress 1: 10.96.0.1 kubernetes.default.svc.cluster.local\n');

    await t.kubectlOk(['scale', 'deployment', 'coredns', '-n', 'kube-system', '--replicas=0']);
    await eventually(() => t.kubectlOk(['get', 'endpointslices', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '-o', 'jsonpath={.items[*].endpoints[*].addresses[0]}']), (o) => o.trim() === '', 'no DNS endpoints');
    const timedOut = await t.kubectl(['exec', 'dns-client', '--', 'nslookup', 'kubernetes.default']);
    expect(timedOut.code).toBe(1);
    // busybox 1.28 names the server only when its reverse lookup answers.
    expect(timedOut.stdout).toBe('Server:    10.96.0.10\nAddress 1: 10.96.0.10\n\n');
    expect(timedOut.stderr).toContain("nslookup: can't resolve 'kubernetes.default'");

    await t.kubectlOk(['scale', 'deployment', 'coredns', '-n', 'kube-system', '--replicas=2']);
    await t.kubectlOk(['rollout', 'status', 'deployment/coredns', '-n', 'kube-system', '--timeout=60s']);
    await eventually(() => t.kubectl(['exec', 'dns-client', '--', 'nslookup', 'kubernetes.default']), (r) => r.code === 0, 'DNS answering again');
  });
});

describe("CoreDNS's log plugin, as the DNS debugging page turns it on", () => {
  let c: TestHost;
  beforeAll(async () => {
    c = await startTestHost({ flags: { simulatedNodes: 1, fakeClock: new Date('2026-01-01T00:00:00Z') } });
  });
  afterAll(async () => {
    await c?.stop();
  });

  it('the edited Corefile is remounted and reloaded; then each question a pod asks is in the coredns logs', async () => {
    await eventually(() => c.kubectlOk(['get', 'pods', '-n', 'kube-system', '-l', 'k8s-app=kube-dns', '--no-headers']), (o) => lines(o).filter((l) => /\s1\/1\s+Running\s/.test(l)).length === 2, 'coredns ready');
    await eventually(async () => (await c.kubectl(['get', 'serviceaccount', 'default'])).code, (code) => code === 0, 'the default service account');
    await c.kubectlOk(['run', 'client', '--image=busybox:1.28', '--restart=Never', '--', 'sleep', '3600']);
    await c.kubectlOk(['wait', '--for=condition=Ready', 'pod/client', '--timeout=30s']);
    // The page's `kubectl -n kube-system edit configmap coredns`, adding `log` to the server block.
    const corefile = await c.kubectlOk(['get', 'configmap', 'coredns', '-n', 'kube-system', '-o', 'jsonpath={.data.Corefile}']);
    const patch = JSON.stringify({ data: { Corefile: corefile.replace('.:53 {\n', '.:53 {\n    log\n') } });
    expect(await c.kubectlOk(['patch', 'configmap', 'coredns', '-n', 'kube-system', '--type=merge', '-p', patch])).toBe('configmap/coredns patched\n');
    // The kubelet's next sync remounts it (1m); the reload plugin's next look (every 30s) takes it.
    await c.advanceClock('100s');
    await c.advanceClock('30s');
    const reloaded = await eventually(() => c.kubectlOk(['logs', '-n', 'kube-system', '-l', 'k8s-app=kube-dns']), (o) => o.split('[INFO] Reloading complete').length === 3, 'both pods reloaded');
    expect(reloaded).toMatch(/\[INFO\] Reloading\n\[INFO\] plugin\/health: Going into lameduck mode for 5s\n\[INFO\] plugin\/reload: Running configuration SHA512 = [0-9a-f]{128}\n\[INFO\] Reloading complete\n/);
    expect((await c.kubectl(['exec', 'client', '--', 'nslookup', 'kubernetes.default'])).code).toBe(0);
    const ip = (await c.kubectlOk(['get', 'pod', 'client', '-o', 'jsonpath={.status.podIP}'])).replace(/\./g, '\\.');
    const logs = await c.kubectlOk(['logs', '-n', 'kube-system', '-l', 'k8s-app=kube-dns']);
    // busybox 1.28 resolves as libc does: the search list first, then each address's reverse name.
    expect(logs).toMatch(new RegExp(`^\\[INFO\\] ${ip}:\\d+ - \\d+ "A IN kubernetes\\.default\\.default\\.svc\\.cluster\\.local\\. udp 62 false 512" NXDOMAIN qr,aa,rd 155 0\\.000\\d{6}s$`, 'm'));
    expect(logs).toMatch(new RegExp(`^\\[INFO\\] ${ip}:\\d+ - \\d+ "A IN kubernetes\\.default\\.svc\\.cluster\\.local\\. udp 54 false 512" NOERROR qr,aa,rd 106 `, 'm'));
    expect(logs).toMatch(new RegExp(`^\\[INFO\\] ${ip}:\\d+ - \\d+ "PTR IN 1\\.0\\.96\\.10\\.in-addr\\.arpa\\. udp 40 false 512" NOERROR qr,aa,rd `, 'm'));
  });
});
