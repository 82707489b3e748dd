/**
 * Bundled data a host may ship apart from its script. The service worker's
 * build replaces the JSON of the large tables (the kinds' OpenAPI schemas,
 * the protobuf descriptors) with a `{ deferredUrl }` reference and emits the
 * JSON as its own file; the worker fetches it the first time a request needs
 * it, so its script holds only what the first API answer needs. The Node host
 * and the tests import the JSON itself: there `value` is set from the start
 * and `load()` resolves at once.
 *
 * Readers deep in the request pipeline stay synchronous: the API server loads
 * what a request needs before it dispatches the request (dataNeeds.ts).
 */

/** What the service worker's build puts where the JSON was. */
export interface DeferredRef {
  readonly deferredUrl: string;
}

/** Fetches and parses one deferred file; the service worker answers from its Cache API copy when it has one. */
export type DataFetcher = (url: string) => Promise<unknown>;

const fetchJson: DataFetcher = async (url) => {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return response.json();
};

let fetcher: DataFetcher = fetchJson;

/** Sets how deferred files are fetched (the service worker keeps them in Cache Storage for offline use). */
export function setDataFetcher(f: DataFetcher): void {
  fetcher = f;
}

export function isDeferredRef(value: unknown): value is DeferredRef {
  return typeof value === 'object' && value !== null && typeof (value as { deferredUrl?: unknown }).deferredUrl === 'string' && Object.keys(value).length === 1;
}

export class DeferredData<T> {
  private current: T | undefined;
  private loading: Promise<T> | undefined;
  /** The file to fetch; undefined when the data came with the script. */
  readonly url: string | undefined;

  constructor(
    /** Named in errors, e.g. "OpenAPI definitions". */
    readonly name: string,
    bundled: T | DeferredRef,
  ) {
    if (isDeferredRef(bundled)) this.url = bundled.deferredUrl;
    else this.current = bundled;
  }

  /** The data, once loaded (always, in a host that bundles it). */
  get value(): T | undefined {
    return this.current;
  }

  /** The data, for a reader the API server has loaded it for; a missing load is a programming error. */
  get loaded(): T {
    if (this.current === undefined) throw new Error(`${this.name} are read before they were loaded`);
    return this.current;
  }

  /** Fetches the data once; a failed fetch is forgotten, so the next request tries again. */
  load(): Promise<T> {
    if (this.current !== undefined) return Promise.resolve(this.current);
    this.loading ??= fetcher(this.url!).then(
      (data) => (this.current = data as T),
      (error: unknown) => {
        this.loading = undefined;
        throw new Error(`loading ${this.name} from ${this.url}: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    return this.loading;
  }
}
