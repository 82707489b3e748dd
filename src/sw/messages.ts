/** Worker side of the page protocol: the version handshake and claim-on-demand. */
import { BUILD_ID, PROTOCOL_VERSION, parsePageMessage, replyToPage } from './protocol';
import type { ExtendableMessageEvent, WorkerClients } from './types';

export function createMessageListener(clients: WorkerClients): (event: ExtendableMessageEvent) => void {
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
    }
  };
}
