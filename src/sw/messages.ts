/** Worker side of the page protocol: the version handshake, claim-on-demand and exec/attach streams (streams.ts). */
import { BUILD_ID, PROTOCOL_VERSION, parsePageMessage, replyToPage } from './protocol';
import type { StreamHost } from './streams';
import type { ExtendableMessageEvent, WorkerClients } from './types';

export function createMessageListener(clients: WorkerClients, streams?: StreamHost): (event: ExtendableMessageEvent) => void {
  return (event) => {
    const message = parsePageMessage(event.data);
    const port = event.ports[0];
    if (message === undefined) return;
    switch (message.type) {
      case 'kubesim/hello':
        replyToPage(port, { type: 'kubesim/hello', protocolVersion: PROTOCOL_VERSION, buildId: BUILD_ID });
        return;
      case 'kubesim/claim':
        event.waitUntil(
          clients.claim().then(
            () => replyToPage(port, { type: 'kubesim/claimed' }),
            (error: unknown) => replyToPage(port, { type: 'kubesim/error', message: String(error) }),
          ),
        );
        return;
      default:
        // Each message is an event that keeps the worker running; an open one until the stream is answered, not for its whole life.
        if (streams) event.waitUntil(streams.receive(message, port));
        return;
    }
  };
}
