import { describe, expect, it } from 'vitest';
import { registryBundle } from './generated';
import { apiServiceName, apiServicePriority } from './apiServicePriorities';

describe('apiVersionPriorities', () => {
  it('has every bundled group version but the aggregator\'s own, at the group priority discovery orders by', () => {
    const missing: string[] = [];
    for (const g of registryBundle.groups) {
      for (const v of g.versions) {
        const p = apiServicePriority(g.name, v);
        if (g.name === 'apiregistration.k8s.io') expect(p).toBeUndefined();
        else if (!p) missing.push(`${g.name}/${v}`);
        else expect([g.name, v, p.group]).toEqual([g.name, v, g.priority]);
      }
    }
    expect(missing).toEqual([]);
  });

  it('names the core group\'s `v1.` and others `<version>.<group>`', () => {
    expect(apiServiceName('', 'v1')).toBe('v1.');
    expect(apiServiceName('apps', 'v1')).toBe('v1.apps');
  });
});
