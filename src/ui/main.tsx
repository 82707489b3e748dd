/** The workbench's entry: connect to the service-worker host, then render the app over its API. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiClientProvider, createApiClient, isApiError } from './api';
import { App } from './app/App';
import { readAccessSettings, withBearerToken } from './features/access/settings';
import { ServiceWorkerGate } from './features/connection';
import { useWorkbench } from './store';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx is the answer, not a glitch: show it at once instead of retrying.
      retry: (failureCount, error) => failureCount < 2 && !(isApiError(error) && error.code >= 400 && error.code < 500),
    },
  },
});

// Every request carries the Access panel's token and asks for its trace; the Trace panel lists them.
const apiClient = createApiClient(
  (request) => fetch(withBearerToken(request, readAccessSettings().token)),
  undefined,
  (exchange) => useWorkbench.getState().recordExchange(exchange),
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ServiceWorkerGate>
      <ApiClientProvider client={apiClient}>
        <QueryClientProvider client={queryClient}>
          <App />
        </QueryClientProvider>
      </ApiClientProvider>
    </ServiceWorkerGate>
  </StrictMode>,
);
