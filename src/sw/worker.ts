/**
 * The service-worker host: answers the page's API requests from the core,
 * over IndexedDB. Built as its own entry and served at the origin root
 * (/sw.js; /src/sw/worker.ts under the dev server) with scope '/'.
 *
 * Lifecycle, made explicit: a new worker activates at once (skipWaiting) and
 * takes control of open pages (clients.claim), so a reload is never needed to
 * pick up a new build. The core starts lazily on the first API request after
 * each (re)start of the worker. The workbench's own files are cached as they
 * load (appCache.ts), so it opens offline after the first visit; so are the
 * core's schemas and descriptors when a request first needs them (dataCache.ts).
 */
import { createApiServer } from '../core';
import { setDataFetcher } from '../core/util/deferredData';
import { afterFirstAnswer } from './afterFirstAnswer';
import { createAppCacheListener, type AppCacheStorage } from './appCache';
import { createDataFetcher, type DataCacheStorage } from './dataCache';
import { createFetchListener } from './fetchHandler';
import { lazily } from './lazyServer';
import { createMessageListener } from './messages';
import { createStreamHost } from './streams';
import { DATABASE_NAME } from './protocol';
import { serverOptionsFrom } from './serverOptions';
import { settingsFromUrl } from './settings';
import { createIndexedDbStorage } from './storage';
import { ensureClusterCA } from './clusterCA';
import type { ServiceWorkerScope } from './types';

const scope = self as unknown as ServiceWorkerScope;

// The core's large tables are files of their own, fetched when a request first needs them and kept for offline use.
setDataFetcher(createDataFetcher((self as unknown as { caches: DataCacheStorage }).caches));

// The controllers' code is a part: each start of the worker answers first, then runs them.
const controllers = afterFirstAnswer((error) => console.error('kubesim: the controllers could not start', error));

const apiServer = lazily(async () => {
  const [storage, ca] = await Promise.all([createIndexedDbStorage(DATABASE_NAME), ensureClusterCA()]);
  // Approved CertificateSigningRequests are signed with the worker's own cluster CA, as kube-controller-manager's.
  const server = createApiServer({ storage, clusterSigning: { ca }, scheduleControllers: controllers.schedule, ...serverOptionsFrom(settingsFromUrl(new URL(scope.location.href))) });
  await server.ready;
  return server;
});

scope.addEventListener('install', (event) => event.waitUntil(scope.skipWaiting()));
scope.addEventListener('activate', (event) => event.waitUntil(scope.clients.claim()));
scope.addEventListener('message', createMessageListener(scope.clients, createStreamHost(new URL(scope.registration.scope).origin, apiServer)));
scope.addEventListener(
  'fetch',
  createFetchListener({
    origin: new URL(scope.registration.scope).origin,
    server: apiServer,
    onError: (error) => console.error('kubesim: API request failed', error),
    onAnswer: controllers.answered,
  }),
);
// Everything else of the same origin (the workbench itself) is cached for offline use.
scope.addEventListener('fetch', createAppCacheListener(new URL(scope.registration.scope).origin, (self as unknown as { caches: AppCacheStorage }).caches));
