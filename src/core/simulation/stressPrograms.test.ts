/** The load generators of the docs' resource tasks: what they say, what they use, and the OOM killer past the memory limit. */
import { describe, expect, it } from 'vitest';
import { run, t0, testView } from './container.test-data';
import { catalogImage } from './imageCatalog';
import { stress, vishStress } from './stressPrograms';

const Mi = 1n << 20n;
const stressView = (memoryLimitBytes?: number) => ({ ...testView({ image: catalogImage('polinux/stress')! }), ...(memoryLimitBytes !== undefined ? { memoryLimitBytes } : {}) });

describe('stress (polinux/stress)', () => {
  it('uses what its hogs take: each vm worker its --vm-bytes (K, M, G in powers of 1024), a cpu worker a core, a vm worker too unless it hangs', () => {
    expect(stress.demand!(['--vm', '1', '--vm-bytes', '150M', '--vm-hang', '1'])).toEqual({ cpuNano: 0n, memoryBytes: 151n * Mi });
    expect(stress.demand!(['--cpu', '2'])).toEqual({ cpuNano: 2_000_000_000n, memoryBytes: Mi });
    expect(stress.demand!(['-m', '2', '--vm-bytes', '64m'])).toEqual({ cpuNano: 2_000_000_000n, memoryBytes: 129n * Mi });
    // The default --vm-bytes is 256M.
    expect(stress.demand!(['--vm', '1', '--vm-hang', '0'])).toEqual({ cpuNano: 0n, memoryBytes: 257n * Mi });
  });

  it('within its limit it dispatches its hogs and runs until stopped; past it the OOM killer ends it at once: 137, OOMKilled', () => {
    const fits = run(['stress', '--vm', '1', '--vm-bytes', '150M', '--vm-hang', '1'], { view: stressView(200 * 1024 * 1024), forMs: 60_000 });
    expect(fits).toMatchObject({ stdout: 'stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd\n', code: undefined });
    const start = run(['stress', '--vm', '1', '--vm-bytes', '250M', '--vm-hang', '1'], { view: stressView(100 * 1024 * 1024) });
    expect(start).toMatchObject({ stdout: 'stress: info: [1] dispatching hogs: 0 cpu, 0 io, 1 vm, 0 hdd\n', code: 137, exitAt: 0 });
    // Without a limit nothing stops it.
    expect(run(['stress', '--vm', '1', '--vm-bytes', '250M'], { view: stressView(), forMs: 60_000 }).code).toBeUndefined();
  });

  it('--timeout ends the run after it; a bad option fails; no option prints the usage', () => {
    expect(run(['stress', '--cpu', '1', '--timeout', '10s'], { view: stressView() })).toMatchObject({ stdout: 'stress: info: [1] dispatching hogs: 1 cpu, 0 io, 0 vm, 0 hdd\nstress: info: [1] successful run completed in 10s\n', code: 0, exitAt: 10_000 });
    expect(run(['stress', '--vm-bytes', 'lots'], { view: stressView() })).toMatchObject({ stderr: 'stress: FAIL: [1] (244) invalid number in --vm-bytes\n', code: 1 });
    expect(run(['stress'], { view: stressView() }).stdout).toMatch(/^`stress' imposes certain types of compute stress on your system\n/);
  });
});

describe('vish/stress', () => {
  it('spins -cpus cores and holds -mem-total; glog flags take no value', () => {
    expect(vishStress.demand!(['-logtostderr', '-cpus', '2'])).toEqual({ cpuNano: 2_000_000_000n, memoryBytes: Mi });
    expect(vishStress.demand!(['-mem-total=150Mi', '--cpus=0.5'])).toEqual({ cpuNano: 500_000_000n, memoryBytes: 151n * Mi });
  });

  it('logs its allocation with klog, and is OOM-killed past the limit', () => {
    const view = { ...testView({ image: catalogImage('vish/stress')! }) };
    const ran = run(['/stress', '-logtostderr', '-mem-total', '150Mi'], { view, forMs: 60_000 });
    const stamp = `I${new Date(t0).toISOString().slice(5, 7)}${new Date(t0).toISOString().slice(8, 10)} ${new Date(t0).toISOString().slice(11, 19)}.000000`;
    expect(ran).toMatchObject({ stderr: `${stamp}       1 main.go:26] Allocating "150Mi" memory, in "4Ki" chunks, with a 1ms sleep between allocations\n${stamp}       1 main.go:39] Allocated "150Mi" memory\n`, code: undefined });
    expect(run(['/stress', '-mem-total', '150Mi'], { view: { ...view, memoryLimitBytes: 100 * 1024 * 1024 } })).toMatchObject({ code: 137 });
  });
});
