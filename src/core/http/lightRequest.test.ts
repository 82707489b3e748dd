/** The core's LightRequest: a Request in every member, over one shared header record and a complete body. */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { headerFields, LightRequest } from './lightRequest';

const fields = headerFields({ Accept: 'application/json', 'User-Agent': ' kubesim-client/v1.32.0 ', 'content-type': 'application/json', 'Content-Length': '2' });

describe('LightRequest', () => {
  it('reads method, URL and headers as a Fetch Request gives them; a change copies the shared record', () => {
    const request = new LightRequest('POST', 'http://localhost/api/v1/namespaces/default/configmaps', fields, new TextEncoder().encode('{}')) as unknown as Request;
    expect(request instanceof Request).toBe(true);
    expect(request.headers instanceof Headers).toBe(true);
    expect([request.method, request.url]).toEqual(['POST', 'http://localhost/api/v1/namespaces/default/configmaps']);
    expect([request.headers.get('ACCEPT'), request.headers.get('user-agent'), request.headers.get('x-none'), request.headers.has('Content-Type')]).toEqual(['application/json', 'kubesim-client/v1.32.0', null, true]);
    expect([...request.headers.keys()]).toEqual(['accept', 'content-length', 'content-type', 'user-agent']);
    request.headers.delete('accept');
    request.headers.append('Impersonate-Group', 'a');
    expect([...request.headers]).toEqual([['content-length', '2'], ['content-type', 'application/json'], ['impersonate-group', 'a'], ['user-agent', 'kubesim-client/v1.32.0']]);
    expect(fields.values['accept']).toBe('application/json');
    expect(request.signal.aborted).toBe(false);
  });

  it('gives its body once, whole or as a stream, and builds a Fetch Request for the rest', async () => {
    const body = () => new TextEncoder().encode('{"a":1}');
    const whole = new LightRequest('PUT', 'http://localhost/x', fields, body()) as unknown as Request;
    expect(whole.bodyUsed).toBe(false);
    expect(await whole.json()).toEqual({ a: 1 });
    expect(whole.bodyUsed).toBe(true);
    await expect(whole.text()).rejects.toThrow(TypeError);
    const bytes = new LightRequest('PUT', 'http://localhost/x', fields, body()) as unknown as Request;
    expect(new TextDecoder().decode(await bytes.arrayBuffer())).toBe('{"a":1}');
    const streamed = new LightRequest('PUT', 'http://localhost/x', fields, body()) as unknown as Request;
    expect(await new Response(streamed.body).text()).toBe('{"a":1}');
    expect(new LightRequest('GET', 'http://localhost/x', fields).body).toBeNull();
    const abort = new AbortController();
    const watched = new LightRequest('GET', 'http://localhost/x?watch=true', fields, null, abort.signal) as unknown as Request;
    abort.abort();
    expect(watched.signal.aborted).toBe(true);
    expect([watched.mode, watched.cache]).toEqual(['cors', 'default']);
    expect(await new LightRequest('POST', 'http://localhost/x', fields, body()).clone().text()).toBe('{"a":1}');
  });

  it('builds its Fetch Requests without listening on a signal nobody can abort, so none is kept alive by it', async () => {
    const shared = (new LightRequest('GET', 'http://localhost/x', fields) as unknown as Request).signal;
    const before = getEventListeners(shared, 'abort').length;
    for (let i = 0; i < 20; i++) {
      const request = new LightRequest('PUT', 'http://localhost/x', headerFields({ 'content-type': 'application/json' }), new TextEncoder().encode('{}')) as unknown as Request;
      expect(request.clone().signal.aborted).toBe(false);
      // A body without Content-Length is read as a stream, from the Fetch Request built for it.
      expect(await new Response(request.body).text()).toBe('{}');
    }
    expect(getEventListeners(shared, 'abort').length).toBe(before);
    // A caller's signal still reaches the Fetch Request.
    const abort = new AbortController();
    const withSignal = new LightRequest('PUT', 'http://localhost/x', fields, new TextEncoder().encode('{}'), abort.signal) as unknown as Request;
    const copy = withSignal.clone();
    abort.abort();
    expect(copy.signal.aborted).toBe(true);
  });
});
