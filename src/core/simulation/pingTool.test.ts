/** busybox ping in a pod: pods and nodes answer, a Service's ClusterIP never does (kube-proxy's iptables rules carry TCP and UDP only). */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../api/types';
import { t0, testView } from './container.test-data';
import { ClusterNetwork } from './clusterNetwork';
import { startProcess } from './containerProcess';

const startedAt = '2026-11-28T17:18:10Z';

function pod(name: string, ip: string, hostIP: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}` },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
    status: { phase: 'Running', hostIP, podIP: ip, podIPs: [{ ip }], containerStatuses: [{ name: 'app', ready: false, state: { running: { startedAt } } }] },
  };
}

const net = new ClusterNetwork();
net.apply('pods', pod('client', '10.244.1.9', '172.18.0.2'));
net.apply('pods', pod('same-node', '10.244.1.5', '172.18.0.2'));
net.apply('pods', pod('other-node', '10.244.2.7', '172.18.0.3'));
net.apply('services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', uid: 'svc-web' }, spec: { clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10'], ports: [{ port: 80, protocol: 'TCP' }] } });

function ping(args: string) {
  const view = { ...testView({ files: { '/etc/resolv.conf': 'search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n' } }), network: { cluster: net, namespace: 'default', podName: 'client', podUID: 'uid-client', container: 'app', startedAt } };
  const start = startProcess(view, ['sh', '-c', `ping ${args}`], t0, { stdin: false, tty: false, seed: 7, commandMs: 0 });
  if (!start.started) throw new Error(start.error);
  const r = start.process.advance(t0 + 60_000, 1_000_000);
  const text = (s: 1 | 2) => r.output.filter((o) => o.stream === s).map((o) => o.text).join('');
  return { stdout: text(1), stderr: text(2), code: r.exit?.code, exitAt: r.exit ? r.exit.at - t0 : undefined };
}

describe('ping', () => {
  it('a pod on the same node answers; -c ends at the last reply', () => {
    expect(ping('-c 3 10.244.1.5')).toEqual({
      stdout:
        'PING 10.244.1.5 (10.244.1.5): 56 data bytes\n64 bytes from 10.244.1.5: seq=0 ttl=64 time=0.060 ms\n64 bytes from 10.244.1.5: seq=1 ttl=64 time=0.074 ms\n64 bytes from 10.244.1.5: seq=2 ttl=64 time=0.065 ms\n\n' +
        '--- 10.244.1.5 ping statistics ---\n3 packets transmitted, 3 packets received, 0% packet loss\nround-trip min/avg/max = 0.060/0.066/0.074 ms\n',
      stderr: '',
      code: 0,
      exitAt: 2000,
    });
  });

  it('a pod on another node is one hop further (ttl 63), a node and the loopback answer, -q prints the summary only', () => {
    expect(ping('-c 1 10.244.2.7').stdout).toContain('64 bytes from 10.244.2.7: seq=0 ttl=63 time=0.400 ms\n');
    expect(ping('-c 1 -q 172.18.0.3').stdout).toBe('PING 172.18.0.3 (172.18.0.3): 56 data bytes\n\n--- 172.18.0.3 ping statistics ---\n1 packets transmitted, 1 packets received, 0% packet loss\nround-trip min/avg/max = 0.400/0.400/0.400 ms\n');
    expect(ping('-c1 -s 100 127.0.0.1').stdout).toContain('108 bytes from 127.0.0.1: seq=0 ttl=64 time=0.030 ms\n');
  });

  it('a Service name resolves to its ClusterIP, which never answers: all lost after waiting -W, status 1', () => {
    expect(ping('-c 2 web')).toEqual({
      stdout: 'PING web (10.96.100.10): 56 data bytes\n\n--- web ping statistics ---\n2 packets transmitted, 0 packets received, 100% packet loss\n',
      stderr: '',
      code: 1,
      exitAt: 11_000,
    });
    expect(ping('-c 2 -W 1 10.96.100.10')).toMatchObject({ code: 1, exitAt: 2000 });
    // -w: a deadline on the whole run.
    expect(ping('-w 3 10.96.100.10')).toMatchObject({ stdout: expect.stringContaining('3 packets transmitted, 0 packets received, 100% packet loss\n'), code: 1, exitAt: 3000 });
  });

  it('an unknown name, a bad count, no host', () => {
    expect(ping('-c 1 nowhere')).toEqual({ stdout: '', stderr: "ping: bad address 'nowhere'\n", code: 1, exitAt: 0 });
    expect(ping('-c x web')).toMatchObject({ stderr: "ping: invalid number 'x'\n", code: 1 });
    expect(ping('')).toMatchObject({ stderr: 'ping: usage: ping [OPTIONS] HOST\n', code: 1 });
  });

  it('without -c it runs until stopped, one echo a second', () => {
    const r = ping('10.244.1.5');
    expect(r.code).toBeUndefined();
    expect(r.stdout.split('\n').filter((l) => l.startsWith('64 bytes')).length).toBe(61);
  });
});
