import { describe, expect, it } from 'vitest';
import { parseDurationMs, settingsFromUrl, workerUrlWith } from './settings';

describe('service-worker host settings', () => {
  it('the watch history window comes from the worker URL, like --etcd-compaction-interval on the Node host', () => {
    expect(settingsFromUrl(new URL('http://x/sw.js?watchHistoryWindow=10m'))).toEqual({ watchHistoryWindowMs: 600_000 });
    expect(settingsFromUrl(new URL('http://x/sw.js'))).toEqual({});
    expect(settingsFromUrl(new URL('http://x/sw.js?watchHistoryWindow=soon'))).toEqual({ watchHistoryWindowMs: undefined });
    expect(parseDurationMs('1h30m')).toBe(5_400_000);
    expect(workerUrlWith('/sw.js', { watchHistoryWindow: '2m' })).toBe('/sw.js?watchHistoryWindow=2m');
    expect(workerUrlWith('/sw.js', {})).toBe('/sw.js');
    const url = workerUrlWith('/sw.js', { tokens: 'a,b,1,"g1,g2"\n', authorizationMode: 'RBAC' });
    expect(settingsFromUrl(new URL(url, 'http://x'))).toEqual({ tokens: 'a,b,1,"g1,g2"\n', authorizationMode: 'RBAC' });
  });
});
