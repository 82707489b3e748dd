import { describe, expect, it } from 'vitest';
import { BUILD_ID, PROTOCOL_VERSION, parsePageMessage, parseWorkerMessage, sendToWorker, type MessageTarget } from './protocol';
import { createMessageListener } from './messages';
import type { ExtendableMessageEvent } from './types';

/** A worker stand-in that runs the real message listener on whatever the page posts. */
function workerWith(claim: () => Promise<void>): MessageTarget {
  const listener = createMessageListener({ claim });
  return {
    postMessage(message, transfer) {
      const pending: Promise<unknown>[] = [];
      const event = {
        data: message,
        ports: transfer as MessagePort[],
        waitUntil: (p: Promise<unknown>) => pending.push(p),
      } as unknown as ExtendableMessageEvent;
      listener(event);
    },
  };
}

describe('protocol', () => {
  it('parses only known page messages', () => {
    expect(parsePageMessage({ type: 'kubesim/hello' })).toEqual({ type: 'kubesim/hello' });
    expect(parsePageMessage({ type: 'kubesim/claim', extra: 1 })).toEqual({ type: 'kubesim/claim' });
    expect(parsePageMessage({ type: 'other' })).toBeUndefined();
    expect(parsePageMessage('kubesim/hello')).toBeUndefined();
    expect(parsePageMessage(null)).toBeUndefined();
  });

  it('rejects malformed worker replies', () => {
    expect(parseWorkerMessage({ type: 'kubesim/hello', protocolVersion: '1', buildId: 'x' })).toBeUndefined();
    expect(parseWorkerMessage({ type: 'kubesim/hello', protocolVersion: 1, buildId: 'x' })).toEqual({
      type: 'kubesim/hello',
      protocolVersion: 1,
      buildId: 'x',
    });
    expect(parseWorkerMessage({ type: 'nope' })).toBeUndefined();
  });

  it('hello handshake reports protocol version and build id over a MessageChannel', async () => {
    const reply = await sendToWorker(workerWith(async () => {}), { type: 'kubesim/hello' });
    expect(reply).toEqual({ type: 'kubesim/hello', protocolVersion: PROTOCOL_VERSION, buildId: BUILD_ID });
  });

  it('claim resolves once the worker has claimed its clients', async () => {
    let claimed = 0;
    const reply = await sendToWorker(workerWith(async () => void claimed++), { type: 'kubesim/claim' });
    expect(reply).toEqual({ type: 'kubesim/claimed' });
    expect(claimed).toBe(1);
  });

  it('a failed claim rejects on the page with the reason', async () => {
    const worker = workerWith(() => Promise.reject(new Error('InvalidStateError')));
    await expect(sendToWorker(worker, { type: 'kubesim/claim' })).rejects.toThrow('InvalidStateError');
  });
});
