/**
 * The few service-worker global types the host uses, declared locally so the
 * worker type-checks under both the DOM and the WebWorker libs (the project's
 * root tsconfig uses DOM; tsconfig.sw.json checks src/sw with WebWorker only).
 */

export interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}

export interface FetchEvent extends ExtendableEvent {
  readonly request: Request;
  readonly clientId: string;
  respondWith(response: Response | Promise<Response>): void;
}

export interface ExtendableMessageEvent extends ExtendableEvent {
  readonly data: unknown;
  readonly ports: readonly MessagePort[];
}

export interface WorkerClients {
  /** Makes this worker the controller of every in-scope client, including uncontrolled ones. */
  claim(): Promise<void>;
}

export interface ServiceWorkerScope {
  readonly clients: WorkerClients;
  readonly registration: { readonly scope: string };
  /** The worker script's own URL, which carries the host settings. */
  readonly location: { readonly href: string };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  addEventListener(type: 'message', listener: (event: ExtendableMessageEvent) => void): void;
}
