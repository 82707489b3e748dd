/** --event-ttl: Events go an hour (by default) after their last write, with a DELETED watch event; a write renews the hour. */
import { afterEach, describe, expect, it } from 'vitest';
import { newTestServer, type TestServer } from '../../testing/client';
import { eventually } from '../../testing/eventually';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.server.close();
  t = undefined;
});

const events = '/api/v1/namespaces/default/events';
const event = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p', apiVersion: 'v1' },
  reason: 'Tested',
  message: 'an event',
  type: 'Normal',
  source: { component: 'test' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:00Z',
  count: 1,
});
const names = async (s: TestServer) => ((await s.json('GET', events)).body.items as { metadata: { name: string } }[]).map((e) => e.metadata.name).sort();

describe('event TTL', () => {
  it('an Event not written for an hour is deleted; one written again meanwhile stays an hour from that write', async () => {
    t = await newTestServer();
    const s = t;
    expect((await s.json('POST', events, { body: event('old') })).status).toBe(201);
    expect((await s.json('POST', events, { body: event('renewed') })).status).toBe(201);
    s.clock.advance(40 * 60_000);
    // Written again 40 minutes in (a recorder raising its count): its hour starts over.
    const renewed = (await s.json('GET', `${events}/renewed`)).body;
    expect((await s.json('PUT', `${events}/renewed`, { body: { ...renewed, count: 2, lastTimestamp: '2026-01-01T00:40:00Z' } })).status).toBe(200);
    s.clock.advance(21 * 60_000);
    await eventually(() => names(s), (l) => l.length === 1, 'the old event deleted');
    expect(await names(s)).toEqual(['renewed']);
    s.clock.advance(40 * 60_000);
    await eventually(() => names(s), (l) => l.length === 0, 'the renewed event deleted');
  });

  it('eventTTLMs (--event-ttl) sets the lifetime; other kinds are untouched', async () => {
    t = await newTestServer({ eventTTLMs: 5 * 60_000 });
    const s = t;
    await s.json('POST', events, { body: event('short') });
    await s.json('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept' } } });
    s.clock.advance(4 * 60_000);
    await new Promise((r) => setTimeout(r, 20));
    expect(await names(s)).toEqual(['short']);
    s.clock.advance(2 * 60_000);
    await eventually(() => names(s), (l) => l.length === 0, 'the event deleted');
    expect((await s.json('GET', '/api/v1/namespaces/default/configmaps/kept')).status).toBe(200);
  });
});
