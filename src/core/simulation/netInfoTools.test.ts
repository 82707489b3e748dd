/** hostname's options through /etc/hosts, and the pod's interfaces as `ip` and `ifconfig` show them. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types';
import { run, testView } from './container.test-data';
import { ClusterNetwork } from './clusterNetwork';

const startedAt = '2026-11-28T17:18:10Z';
const net = new ClusterNetwork();
const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'db-0', namespace: 'default', uid: 'uid-db-0' },
  spec: { hostname: 'db-0', subdomain: 'db', containers: [{ name: 'app', image: 'busybox' }] },
  status: { phase: 'Running', hostIP: '172.18.0.2', podIP: '10.244.1.20', podIPs: [{ ip: '10.244.1.20' }], containerStatuses: [{ name: 'app', state: { running: { startedAt } } }] },
};
net.apply('pods', pod);

/** A StatefulSet pod's view: its hosts file names its FQDN first, as the kubelet writes it for a subdomain. */
function view(hosts: string) {
  return { ...testView({ files: { '/etc/hosts': hosts } }), hostname: 'db-0', network: { cluster: net, namespace: 'default', podName: 'db-0', podUID: 'uid-db-0', container: 'app', startedAt, podIP: '10.244.1.20' } };
}
const statefulHosts = '# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n10.244.1.20\tdb-0.db.default.svc.cluster.local\tdb-0\n';

describe('hostname', () => {
  it('-f is the FQDN the kubelet wrote for the subdomain, -d its domain, -s the short name, -i the address (busybox ends it with a space)', () => {
    expect(run('hostname; hostname -s; hostname -f; hostname -d; hostname -i', { view: view(statefulHosts) }).stdout).toBe('db-0\ndb-0\ndb-0.db.default.svc.cluster.local\ndb.default.svc.cluster.local\n10.244.1.20 \n');
  });

  it('without a subdomain the name is its own FQDN and the domain is empty; a name not in /etc/hosts is unknown', () => {
    expect(run('hostname -f; hostname -d', { view: view('127.0.0.1\tlocalhost\n10.244.1.20\tdb-0\n') }).stdout).toBe('db-0\n\n');
    expect(run('hostname -i', { view: view('127.0.0.1\tlocalhost\n') })).toMatchObject({ stderr: 'hostname: db-0: Unknown host\n', code: 1 });
    expect(run('hostname -x', { view: view(statefulHosts) })).toMatchObject({ stderr: 'hostname: unrecognized option: x\n', code: 1 });
  });
});

describe('ip and ifconfig', () => {
  it('ip addr: lo, and eth0 with the pod IP in the node\'s /24', () => {
    expect(run('ip addr', { view: view(statefulHosts) }).stdout).toBe(
      '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n    inet 127.0.0.1/8 scope host lo\n       valid_lft forever preferred_lft forever\n' +
        '2: eth0@if24: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue \n    link/ether 02:42:0a:f4:01:14 brd ff:ff:ff:ff:ff:ff\n    inet 10.244.1.20/24 brd 10.244.1.255 scope global eth0\n       valid_lft forever preferred_lft forever\n',
    );
    expect(run('ip a show', { view: view(statefulHosts) }).stdout).toContain('inet 10.244.1.20/24');
  });

  it('ip route: the default route through the bridge\'s .1; changing anything needs NET_ADMIN', () => {
    expect(run('ip route', { view: view(statefulHosts) }).stdout).toBe('default via 10.244.1.1 dev eth0 \n10.244.1.0/24 dev eth0 scope link  src 10.244.1.20 \n');
    expect(run('ip addr add 10.0.0.1/24 dev eth0', { view: view(statefulHosts) })).toMatchObject({ stderr: 'ip: RTNETLINK answers: Operation not permitted\n', code: 2 });
  });

  it('ifconfig: eth0 then lo; one interface by name; an unknown one', () => {
    const out = run('ifconfig', { view: view(statefulHosts) }).stdout;
    expect(out.startsWith('eth0      Link encap:Ethernet  HWaddr 02:42:0A:F4:01:14  \n          inet addr:10.244.1.20  Bcast:10.244.1.255  Mask:255.255.255.0\n')).toBe(true);
    expect(out).toContain('\nlo        Link encap:Local Loopback  \n          inet addr:127.0.0.1  Mask:255.0.0.0\n');
    expect(run('ifconfig lo', { view: view(statefulHosts) }).stdout.startsWith('lo ')).toBe(true);
    expect(run('ifconfig eth1', { view: view(statefulHosts) })).toMatchObject({ stderr: 'ifconfig: eth1: error fetching interface information: Device not found\n', code: 1 });
  });
});

describe('netstat', () => {
  it('-tln: each socket the pod listens on, per bound address; nothing is ever established', () => {
    const owner = {};
    net.listen({ podUID: 'uid-db-0', container: 'app', startedAt, port: 80, since: 0, owner, addresses: ['0.0.0.0', '::'], respond: () => '' });
    net.listen({ podUID: 'uid-db-0', container: 'app', startedAt, port: 8080, since: 0, owner, addresses: ['::'], respond: () => '' });
    const header = 'Active Internet connections (only servers)\nProto Recv-Q Send-Q Local Address           Foreign Address         State       \n';
    expect(run('netstat -tln', { view: view(statefulHosts) }).stdout).toBe(
      header +
        'tcp        0      0 0.0.0.0:80              0.0.0.0:*               LISTEN      \n' +
        'tcp        0      0 :::80                   :::*                    LISTEN      \n' +
        'tcp        0      0 :::8080                 :::*                    LISTEN      \n',
    );
    expect(run('netstat -tlnp', { view: view(statefulHosts) }).stdout.split('\n')[2]).toBe('tcp        0      0 0.0.0.0:80              0.0.0.0:*               LISTEN       -');
    expect(run('netstat -tn', { view: view(statefulHosts) }).stdout).toBe('Active Internet connections (w/o servers)\nProto Recv-Q Send-Q Local Address           Foreign Address         State       \n');
    expect(run('netstat -lnx', { view: view(statefulHosts) }).stdout).toBe('Active UNIX domain sockets (only servers)\nProto RefCnt Flags       Type       State         I-Node Path\n');
    expect(run('netstat -q', { view: view(statefulHosts) })).toMatchObject({ stderr: 'netstat: unrecognized option: q\n', code: 1 });
  });
});
