/** An object's events as kubectl describe lists them: the selector, kubectl's sort, the Age and From columns. */
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../api';
import { eventRow, involvedObjectSelector, sortEvents } from './events';

const now = new Date('2026-11-28T12:10:00Z');
const event = (name: string, fields: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, type: 'Normal', ...fields });

describe('events as kubectl describe lists them', () => {
  it('are found by the object\'s uid', () => {
    expect(involvedObjectSelector('0f1e')).toBe('involvedObject.uid=0f1e');
  });

  it('sort by series.lastObservedTime, else lastTimestamp, else eventTime; ties keep their order', () => {
    const events = [
      event('late', { lastTimestamp: '2026-11-28T12:09:00Z' }),
      event('series', { eventTime: '2026-11-28T12:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-11-28T12:09:30.000000Z' } }),
      event('micro', { eventTime: '2026-11-28T12:05:00.000000Z' }),
      event('early', { lastTimestamp: '2026-11-28T12:01:00Z', eventTime: '2026-11-28T12:09:59.000000Z' }),
      event('none-a', {}),
      event('none-b', {}),
    ];
    expect(sortEvents(events).map((e) => e.metadata?.name)).toEqual(['none-a', 'none-b', 'early', 'micro', 'late', 'series']);
  });

  it('Age is the first time, or `last (xN over first)` for a repeated event; From is the source, else the reporting controller', () => {
    expect(eventRow(event('a', { reason: 'Scheduled', firstTimestamp: '2026-11-28T12:09:55Z', lastTimestamp: '2026-11-28T12:09:55Z', count: 1, source: { component: 'default-scheduler' }, message: 'Successfully assigned default/web to node-1\n' }), now)).toEqual({
      key: 'default/a',
      type: 'Normal',
      reason: 'Scheduled',
      age: '5s',
      from: 'default-scheduler',
      message: 'Successfully assigned default/web to node-1',
    });
    expect(eventRow(event('b', { type: 'Warning', reason: 'BackOff', firstTimestamp: '2026-11-28T12:00:00Z', lastTimestamp: '2026-11-28T12:09:50Z', count: 7, source: { component: 'kubelet', host: 'node-1' } }), now)).toMatchObject({ age: '10s (x7 over 10m)', from: 'kubelet' });
    // events.k8s.io style: eventTime and a series, no source.
    expect(eventRow(event('c', { eventTime: '2026-11-28T12:07:00.000000Z', series: { count: 3, lastObservedTime: '2026-11-28T12:09:00.000000Z' }, reportingComponent: 'my-controller', source: {} }), now)).toMatchObject({ age: '60s (x3 over 3m)', from: 'my-controller' });
    expect(eventRow(event('d', {}), now).age).toBe('<unknown>');
  });
});
