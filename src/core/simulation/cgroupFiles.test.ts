/** A container's cgroup files hold its limits, while free, nproc and /proc/meminfo show the node, as in a real container. */
import { describe, expect, it } from 'vitest';
import { cgroupFiles, freeOutput, meminfo } from './cgroupFiles';
import { run, testView } from './container.test-data';

const limited = { name: 'c', resources: { requests: { cpu: '500m', memory: '64Mi' }, limits: { cpu: '1', memory: '100Mi' } } };

describe('cgroup files', () => {
  it('memory.max is the memory limit in bytes, cpu.max the CFS quota over its 100ms period, cpu.weight the request as cgroup v2 weighs it', () => {
    expect(cgroupFiles(limited)).toEqual([
      ['/sys/fs/cgroup/memory.max', '104857600\n'],
      ['/sys/fs/cgroup/cpu.max', '100000 100000\n'],
      ['/sys/fs/cgroup/cpu.weight', '20\n'],
    ]);
    // No limits: max; a request of 250m weighs 10; a limit of 1m still gets the 1ms minimum quota.
    expect(cgroupFiles({ name: 'c', resources: { requests: { cpu: '250m' } } }).map(([, t]) => t)).toEqual(['max\n', 'max 100000\n', '10\n']);
    expect(cgroupFiles({ name: 'c', resources: { limits: { cpu: '1m' } } })[1]![1]).toBe('1000 100000\n');
    // Nothing requested: the minimum 2 shares, weight 1.
    expect(cgroupFiles({ name: 'c' })[2]![1]).toBe('1\n');
  });

  it("free and /proc/meminfo show the node's 16 GiB, nproc its 4 CPUs, whatever the container's limits", () => {
    expect(meminfo().split('\n')[0]).toBe('MemTotal:       16777216 kB');
    expect(freeOutput('m')).toBe('              total        used        free      shared  buff/cache   available\nMem:          16384         512       14848           0        1024       15872\nSwap:             0           0           0\n');
    const view = { ...testView(), files: new Map([...testView().files, ['/sys/fs/cgroup/memory.max', { type: 'file' as const, content: new TextEncoder().encode('104857600\n'), mode: 0o644 }]]) };
    expect(run('nproc; free -g | sed -n 2p; cat /sys/fs/cgroup/memory.max', { view }).stdout).toBe('4\nMem:             16           0          14           0           1          15\n104857600\n');
  });
});
