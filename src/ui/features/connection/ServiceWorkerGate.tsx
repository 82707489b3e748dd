/**
 * Renders the workbench only once the service worker controls the page:
 * before that, API requests would go to the static file server instead.
 */
import { useEffect, type ReactNode } from 'react';
import { connectServiceWorker } from '../../sw/register';
import { useWorkbench } from '../../store';

export function ServiceWorkerGate({ children }: { children: ReactNode }) {
  const connection = useWorkbench((s) => s.connection);
  const setConnection = useWorkbench((s) => s.setConnection);

  useEffect(() => {
    let cancelled = false;
    connectServiceWorker().then(
      (c) => !cancelled && setConnection({ state: 'ready', buildId: c.buildId, stale: c.stale }),
      (error: unknown) => !cancelled && setConnection({ state: 'failed', message: error instanceof Error ? error.message : String(error) }),
    );
    return () => {
      cancelled = true;
    };
  }, [setConnection]);

  switch (connection.state) {
    case 'connecting':
      return (
        <main className="gate" data-testid="sw-connecting">
          <p>Starting the API server in a service worker…</p>
        </main>
      );
    case 'failed':
      return (
        <main className="gate" data-testid="sw-unavailable">
          <h1>kubesim cannot start here</h1>
          <p role="alert">{connection.message}</p>
        </main>
      );
    case 'ready':
      return <>{children}</>;
  }
}
