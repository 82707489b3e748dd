import { describe, expect, it } from 'vitest';
import { Store } from '../registry/generic/store';
import { registryBundle } from '../registry/generated';
import { ResourceRegistry } from '../registry/registry';
import { strategyFor } from '../registry/strategies';
import type { ResourceType } from '../registry/types';
import type { Storage } from '../storage/interface';
import { createMemoryStorage } from '../storage/memory';
import { FakeClock, seededRandom } from '../util/clock';
import { startLeaderElection, type LeaderElector } from './leaderElection';

/** Two candidates over one store, each on its own clock (a hung process's clock stands still). */
function candidate(storage: Storage, registry: ResourceRegistry, identity: string) {
  const clock = new FakeClock('2026-01-01T00:00:00Z');
  const stores = new Map<string, Store>();
  const storeFor = (type: ResourceType) => {
    let store = stores.get(type.resource);
    if (!store) stores.set(type.resource, (store = new Store(type, strategyFor(type), { storage, clock, random: seededRandom(identity.length), checkNamespace: async () => {} })));
    return store;
  };
  const state = { leading: false, starts: 0 };
  const elector: LeaderElector = startLeaderElection({ storage, registry, clock, storeFor }, { identity }, {
    onStartedLeading: () => {
      state.leading = true;
      state.starts++;
    },
    onStoppedLeading: () => {
      state.leading = false;
    },
  });
  return { clock, state, elector };
}

const settle = async () => {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
};

describe('leader election over a Lease', () => {
  it('keeps one leader, hands over after the lease duration without renewals, and releases on stop', async () => {
    const storage = createMemoryStorage();
    const registry = new ResourceRegistry(registryBundle);
    const leases = new Store(registry.resourceFor('coordination.k8s.io', 'v1', 'leases')!, strategyFor(registry.resourceFor('coordination.k8s.io', 'v1', 'leases')!), { storage, clock: new FakeClock(), random: seededRandom(1), checkNamespace: async () => {} });
    const lease = async () => (await leases.get('kube-system', 'kube-controller-manager')) as unknown as { spec: Record<string, unknown> };

    const a = candidate(storage, registry, 'host-a_1');
    await settle();
    expect(a.state.leading).toBe(true);
    expect((await lease()).spec).toEqual({
      holderIdentity: 'host-a_1', leaseDurationSeconds: 15, acquireTime: '2026-01-01T00:00:00.000000Z', renewTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0,
    });

    const b = candidate(storage, registry, 'host-b_2');
    // While A renews every retry period, B stays a follower.
    for (let i = 0; i < 10; i++) {
      a.clock.advance(2000);
      await settle();
      b.clock.advance(2000);
      await settle();
      expect([a.state.leading, b.state.leading]).toEqual([true, false]);
    }
    expect((await lease()).spec['renewTime']).toBe('2026-01-01T00:00:20.000000Z');

    // A stops renewing: B takes the Lease once the record went unchanged for 15s on B's clock.
    for (let i = 0; i < 7; i++) {
      b.clock.advance(2000);
      await settle();
      expect(b.state.leading).toBe(false);
    }
    b.clock.advance(2000);
    await settle();
    expect(b.state.leading).toBe(true);
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'host-b_2', leaseTransitions: 1, acquireTime: '2026-01-01T00:00:36.000000Z' });

    // A wakes up, fails to renew, and stops its controllers after the renew deadline (10s).
    for (let i = 0; i < 4; i++) {
      a.clock.advance(2000);
      await settle();
      expect(a.state.leading).toBe(true);
    }
    a.clock.advance(2000);
    await settle();
    expect(a.state.leading).toBe(false);

    // B stops and releases; A takes over at its next retry instead of after the lease duration.
    await b.elector.stop();
    expect(b.state.leading).toBe(false);
    expect((await lease()).spec).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1 });
    a.clock.advance(2000);
    await settle();
    expect(a.state).toEqual({ leading: true, starts: 2 });
    expect((await lease()).spec).toMatchObject({ holderIdentity: 'host-a_1', leaseTransitions: 2 });
    await a.elector.stop();
  });
});
