/** The core's LightResponse: a Response in every member, kept as given until something needs a Fetch Response. */
import { describe, expect, it } from 'vitest';
import { LightResponse, nativeResponse } from './lightResponse';

const light = (body?: BodyInit | null, init?: ResponseInit) => new LightResponse(body, init) as unknown as Response;

describe('LightResponse', () => {
  it('behaves as a Response: status checks, default content type, reading the body once', async () => {
    const text = light('hello', { status: 201, headers: { 'x-a': '1' } });
    expect(text instanceof Response).toBe(true);
    expect([text.status, text.ok, text.statusText, text.type, text.url, text.redirected]).toEqual([201, true, '', 'default', '', false]);
    expect([text.headers.get('content-type'), text.headers.get('x-a')]).toEqual(['text/plain;charset=UTF-8', '1']);
    expect(await text.clone().text()).toBe('hello');
    expect(text.bodyUsed).toBe(false);
    expect(await text.text()).toBe('hello');
    expect(text.bodyUsed).toBe(true);
    await expect(text.text()).rejects.toThrow(TypeError);
    await expect(text.json()).rejects.toThrow(TypeError);
    expect(await light(new Uint8Array([123, 125])).json()).toEqual({});
    await expect(light('{').json()).rejects.toThrow(SyntaxError);
    expect(new Uint8Array(await light('ab').arrayBuffer())).toEqual(new Uint8Array([97, 98]));
    expect(await (await light('é', { headers: { 'content-type': 'text/x' } }).blob()).text()).toBe('é');
    expect(() => light('x', { status: 204 })).toThrow(TypeError);
    expect(() => light(null, { status: 99 })).toThrow(RangeError);
    expect(light(null, { status: 204 }).body).toBeNull();
  });

  it('turns into a Fetch Response for a stream, a Headers init or a status text, and for the platform', async () => {
    const streamed = light('abc');
    const reader = streamed.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('abc');
    expect(streamed.bodyUsed).toBe(true);
    expect(LightResponse.lightParts(light(new ReadableStream()))).toBeUndefined();
    expect(LightResponse.lightParts(light('x', { headers: new Headers() }))).toBeUndefined();
    expect(light('x', { statusText: 'Fine' }).statusText).toBe('Fine');
    const changed = light('{}', { headers: { 'content-type': 'application/json' } });
    changed.headers.append('Warning', '299 - "w"');
    const native = nativeResponse(changed);
    expect(Object.getPrototypeOf(native)).toBe(Response.prototype);
    expect([native.status, native.headers.get('warning'), native.headers.get('content-type')]).toEqual([200, '299 - "w"', 'application/json']);
    expect(await native.text()).toBe('{}');
    expect(changed.bodyUsed).toBe(true);
    const plain = new Response('p');
    expect(nativeResponse(plain)).toBe(plain);
  });
});
