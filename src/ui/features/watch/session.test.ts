import { describe, expect, it } from 'vitest';
import { createApiServer, createMemoryStorage, FakeClock, seededRandom } from '../../../core';
import { rawApiControllers } from '../../../core/testing/client';
import { createApiClient, readWatchEvents, type KubeList, type WatchEvent } from '../../api';
import { diffLines, EMPTY_SESSION, objectText, queued, sessionReducer, watchQuery, DEFAULT_WATCH_PARAMS } from './session';

const NS = '/api/v1/namespaces/default/configmaps';

describe('watchQuery', () => {
  it('leaves unset parameters out; sendInitialEvents brings resourceVersionMatch=NotOlderThan', () => {
    expect(watchQuery(DEFAULT_WATCH_PARAMS).toString()).toBe('watch=1&allowWatchBookmarks=true');
    expect(watchQuery({ ...DEFAULT_WATCH_PARAMS, resourceVersion: '7', sendInitialEvents: true, labelSelector: ' app=web ' }).toString()).toBe(
      'watch=1&resourceVersion=7&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=app%3Dweb',
    );
  });
});

describe('diffLines', () => {
  it('marks removed and added lines around the common ones', () => {
    expect(diffLines('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
      { op: '+', text: 'd' },
    ]);
    expect(diffLines('', 'x\n')).toEqual([{ op: '+', text: 'x' }]);
  });
});

describe('stepping a watch from the core', () => {
  async function setup() {
    const clock = new FakeClock();
    const server = createApiServer({ storage: createMemoryStorage(), clock, random: seededRandom(4), controllers: rawApiControllers });
    await server.ready;
    const client = createApiClient((request) => server.handle(request), 'http://kubesim.test');
    const create = (name: string, data: Record<string, string> = { v: '1' }) => client.write('create', NS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
    return { clock, server, client, create };
  }

  async function take(response: Response, n: number): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    for await (const event of readWatchEvents(response.body!)) {
      events.push(event);
      if (events.length === n) break;
    }
    return events;
  }

  it('[API-WATCH-029] events queue, each step applies one and keeps the object before it for the diff', async () => {
    const { server, client, create } = await setup();
    const start = (await client.get<KubeList>(NS)).metadata.resourceVersion!;
    await create('a');
    await client.write('replace', `${NS}/a`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { v: '2' } });
    await client.write('delete', `${NS}/a`, undefined);
    const response = await client.fetch(`${NS}?${watchQuery({ ...DEFAULT_WATCH_PARAMS, resourceVersion: start, allowWatchBookmarks: false })}`);
    let session = EMPTY_SESSION;
    for (const event of await take(response, 3)) session = sessionReducer(session, { type: 'received', event });
    expect(queued(session)).toBe(3);
    session = sessionReducer(session, { type: 'step' });
    session = sessionReducer(session, { type: 'step' });
    expect(session.history.map((h) => h.event.type)).toEqual(['ADDED', 'MODIFIED']);
    const modified = session.history[1]!;
    const diff = diffLines(objectText(modified.before), objectText(modified.event.object as never));
    expect(diff.filter((l) => l.op !== ' ').map((l) => `${l.op}${l.text.trim()}`)).toEqual(expect.arrayContaining(['-v: "1"', '+v: "2"']));
    session = sessionReducer(session, { type: 'step' });
    expect(session.objects).toEqual({});
    expect(queued(session)).toBe(0);
    await server.close();
  });

  it('[API-WATCH-029] [API-ERR-010] a watch from before the window (fake clock) ends with ERROR 410 Expired; a relist resumes it', async () => {
    const { clock, server, client, create } = await setup();
    await create('old');
    const stale = (await client.get<KubeList>(NS)).metadata.resourceVersion!;
    await create('older');
    clock.advance(6 * 60_000);
    await create('new');
    const response = await client.fetch(`${NS}?${watchQuery({ ...DEFAULT_WATCH_PARAMS, resourceVersion: stale })}`);
    expect(response.status).toBe(200);
    const [event] = await take(response, 1);
    expect(event).toMatchObject({ type: 'ERROR', object: { code: 410, reason: 'Expired' } });
    let session = sessionReducer(EMPTY_SESSION, { type: 'failed', status: event!.object as never });
    const list = await client.get<KubeList>(NS);
    session = sessionReducer(session, { type: 'relisted', items: list.items, resourceVersion: list.metadata.resourceVersion! });
    expect(session.failure).toBeUndefined();
    expect(Object.keys(session.objects).sort()).toEqual(['default/new', 'default/old', 'default/older']);
    expect(session.relist).toEqual({ count: 3, resourceVersion: list.metadata.resourceVersion });
    await server.close();
  });

  it('[API-WATCH-029] sendInitialEvents: existing objects arrive as ADDED, then a BOOKMARK marks the end of the initial events', async () => {
    const { server, client, create } = await setup();
    await create('a');
    await create('b');
    const response = await client.fetch(`${NS}?${watchQuery({ ...DEFAULT_WATCH_PARAMS, sendInitialEvents: true })}`);
    let session = EMPTY_SESSION;
    for (const event of await take(response, 3)) session = sessionReducer(session, { type: 'received', event });
    for (let i = 0; i < 3; i++) session = sessionReducer(session, { type: 'step' });
    expect(session.history.map((h) => `${h.event.type} ${h.event.object.metadata?.name ?? ''}`)).toEqual(['ADDED a', 'ADDED b', 'BOOKMARK ']);
    expect(session.history[2]!.event.object.metadata?.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
    expect(Object.keys(session.objects).sort()).toEqual(['default/a', 'default/b']);
    await server.close();
  });
});
