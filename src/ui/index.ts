/**
 * The kubesim workbench: a React client of the API server. main.tsx is the
 * entry; features/ hold one folder per screen area, api/ the HTTP client and
 * query keys, sw/ the page side of the service-worker host, store.ts the
 * bound zustand store.
 */
export { App } from './app/App';
